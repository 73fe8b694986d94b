/**
 * The memory budget of one script run (see `DEFAULT_MAX_MEMORY_BYTES`). The interpreter asks it before it
 * builds a value that can grow (joined strings, arrays, `:tostr`, `:toarray`) and tells it what variables and
 * kept output hold, so a doubling loop ends with an error long before the process notices.
 */

import { RouterOsError } from "../errors.js";
import { RosCode } from "../language/code-value.js";
import type { RosValue } from "../language/host.js";
import { MAX_NESTING } from "../limits.js";
import type { Cell } from "./scope.js";

/** Bytes a value stands for: two a character of text, eight a scalar, eight a slot of an array plus its items. */
export function textBytes(length: number): number {
  return length * 2;
}

export class MemoryBudget {
  /** Bytes held by live variables and kept output. */
  private held = 0;
  /** Arrays already measured: arrays never change, and `{$a;$a}` must not re-walk `$a`. */
  private readonly arrays = new WeakMap<readonly RosValue[], { size: number; depth: number }>();
  /** What each variable's value was counted as, to release it when the variable goes away. */
  private readonly cellSizes = new WeakMap<Cell, number>();

  constructor(readonly limit: number) {}

  sizeOf(value: RosValue): number {
    if (typeof value === "string") return textBytes(value.length);
    if (value instanceof RosCode) return textBytes(value.source.length);
    if (!Array.isArray(value)) return 8;
    return this.measure(value).size;
  }

  private measure(array: readonly RosValue[]): { size: number; depth: number } {
    const known = this.arrays.get(array);
    if (known !== undefined) return known;
    let size = 16;
    let depth = 1;
    for (const item of array) {
      if (Array.isArray(item)) {
        const inner = this.measure(item);
        size += 8 + inner.size;
        depth = Math.max(depth, inner.depth + 1);
      } else size += 8 + this.sizeOf(item);
    }
    const info = { size, depth };
    this.arrays.set(array, info);
    return info;
  }

  /** Fails when a new value of `bytes` would not fit next to what the run holds. */
  admit(bytes: number): void {
    if (this.held + bytes > this.limit) {
      throw new RouterOsError(
        `not enough memory: script values would exceed ${this.limit} bytes, the limit of this router`,
      );
    }
  }

  /**
   * Admits a value just built (an array, a converted value) and returns it. Arrays nested deeper than
   * `MAX_NESTING` fail too: printing or comparing them recurses once per level.
   */
  check<T extends RosValue>(value: T): T {
    if (!Array.isArray(value)) {
      this.admit(this.sizeOf(value));
      return value;
    }
    const { size, depth } = this.measure(value);
    if (depth > MAX_NESTING) throw new RouterOsError(`too deeply nested, at most ${MAX_NESTING} levels`);
    this.admit(size);
    return value;
  }

  /** Kept output (printed lines stay with the run until it ends). */
  keep(bytes: number): void {
    this.admit(bytes);
    this.held += bytes;
  }

  /** Stores `value` in `cell`, counting the new value instead of the old one. */
  store(cell: Cell, value: RosValue): void {
    const before = this.cellSizes.get(cell) ?? 0;
    const after = this.sizeOf(value);
    this.admit(after - before);
    this.held += after - before;
    this.cellSizes.set(cell, after);
    cell.value = value;
  }

  /** Counts a cell that already holds a value (a global kept from an earlier run). */
  adopt(cell: Cell): void {
    if (this.cellSizes.has(cell)) return;
    const size = this.sizeOf(cell.value);
    this.held += size;
    this.cellSizes.set(cell, size);
  }

  /** The variable went out of scope. */
  release(cell: Cell): void {
    const size = this.cellSizes.get(cell);
    if (size === undefined) return;
    this.held -= size;
    this.cellSizes.delete(cell);
  }
}
