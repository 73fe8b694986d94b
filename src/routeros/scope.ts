import type { RosValue } from "./host.js";

/** A variable's storage; `:global` binds the same cell in every scope that declares it. */
export interface Cell {
  value: RosValue;
}

/** Variables of one `{ }` block; lookups walk outwards, so inner blocks see outer locals. */
export class Scope {
  private readonly vars = new Map<string, Cell>();

  constructor(private readonly parent?: Scope) {}

  bind(name: string, cell: Cell): void {
    this.vars.set(name, cell);
  }

  lookup(name: string): Cell | undefined {
    for (let scope: Scope | undefined = this; scope; scope = scope.parent) {
      const cell = scope.vars.get(name);
      if (cell) return cell;
    }
    return undefined;
  }
}
