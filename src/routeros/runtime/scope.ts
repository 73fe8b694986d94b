import type { Block } from "../language/ast.js";
import type { RosValue } from "../language/host.js";

/** A variable's storage; `:global` binds the same cell in every scope that declares it. */
export interface Cell {
  value: RosValue;
  /** The function a variable holds (`:local f do={...}`); `value` is then nil. */
  code?: Block;
}

/** Variables of one `{ }` block; lookups walk outwards, so inner blocks see outer locals. */
export class Scope {
  private readonly vars = new Map<string, Cell>();
  /** Cells this scope created (not globals it only binds): they end with it. */
  private owned: Set<Cell> | undefined;

  constructor(private readonly parent?: Scope) {}

  /**
   * Binds `name`. `owned` cells are listed by `ownedCells()` for release when the block ends. Returns the
   * cell this scope created under that name before (`:local x` twice), which ends now.
   */
  bind(name: string, cell: Cell, owned = false): Cell | undefined {
    const previous = this.vars.get(name);
    this.vars.set(name, cell);
    if (owned) {
      if (!this.owned) this.owned = new Set();
      this.owned.add(cell);
    }
    if (previous === undefined || !this.owned?.delete(previous)) return undefined;
    return previous;
  }

  lookup(name: string): Cell | undefined {
    for (let scope: Scope | undefined = this; scope; scope = scope.parent) {
      const cell = scope.vars.get(name);
      if (cell) return cell;
    }
    return undefined;
  }

  /** The cells this scope created, for the memory budget to release when the block ends. */
  ownedCells(): Iterable<Cell> {
    return this.owned ?? [];
  }
}
