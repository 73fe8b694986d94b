/**
 * One stored list of items: ids as RouterOS hands them out (`*1`, `*2`, ... never reused after a remove),
 * and an order that matters where rules are evaluated top to bottom (firewall).
 */

export interface Item {
  readonly id: number;
  /** Stored (canonical) values of the properties written so far; defaults are not stored. */
  values: Record<string, string>;
  /** Created by the router itself (ARP neighbours, connected routes): printed, never exported. */
  readonly dynamic?: boolean;
  /** Values of a built-in item (ether1, the admin user) at reset; export compares against them. */
  readonly base?: Readonly<Record<string, string>>;
}

export interface TableState {
  readonly nextId: number;
  readonly items: Item[];
}

export class Table {
  private constructor(
    private list: Item[],
    private nextId: number,
  ) {}

  static empty(): Table {
    return new Table([], 1);
  }

  static from(state: TableState): Table {
    return new Table(structuredClone([...state.items]), state.nextId);
  }

  state(): TableState {
    return { nextId: this.nextId, items: structuredClone(this.list) };
  }

  get items(): readonly Item[] {
    return this.list;
  }

  get(id: number): Item | undefined {
    return this.list.find((item) => item.id === id);
  }

  insert(
    values: Record<string, string>,
    options: { dynamic?: boolean; base?: Record<string, string>; before?: number } = {},
  ): Item {
    const item: Item = { id: this.nextId++, values };
    if (options.dynamic) Object.assign(item, { dynamic: true });
    if (options.base) Object.assign(item, { base: { ...options.base } });
    const index = options.before === undefined ? -1 : this.list.findIndex((i) => i.id === options.before);
    if (index < 0) this.list.push(item);
    else this.list.splice(index, 0, item);
    return item;
  }

  /** Ids below `nextId` were handed out before (a backup being loaded): none of them is handed out again. */
  reserveIds(nextId: number): void {
    this.nextId = Math.max(this.nextId, nextId);
  }

  remove(id: number): void {
    this.list = this.list.filter((item) => item.id !== id);
  }

  /** Moves the items before `before` (or to the end), keeping their relative order. */
  move(ids: readonly number[], before?: number): void {
    const moving = this.list.filter((item) => ids.includes(item.id));
    const rest = this.list.filter((item) => !ids.includes(item.id));
    const index = before === undefined ? -1 : rest.findIndex((item) => item.id === before);
    rest.splice(index < 0 ? rest.length : index, 0, ...moving);
    this.list = rest;
  }
}
