import type { PgliteSource } from "./pglite.js";

/**
 * The messages between the embedded databases of a process and the thread they run on (pglite-on-thread.ts,
 * pglite-thread.ts). Values cross by structured clone, which keeps what PGlite returns (dates, bytes, parsed
 * JSON) as it is.
 */

/** Opens a database on the thread; the request's id names it from then on. */
export interface OpenRequest {
  readonly id: number;
  readonly op: "open";
  readonly source: PgliteSource;
}

/** A statement of database `db`, alone or inside the transaction that `begin` numbered `tx` opened. */
export interface QueryRequest {
  readonly id: number;
  readonly op: "query";
  readonly db: number;
  readonly sql: string;
  readonly params: readonly unknown[] | undefined;
  readonly tx?: number;
}

/** Opens a transaction; its reply comes once it has begun (after those before it ended). Its id names it. */
export interface BeginRequest {
  readonly id: number;
  readonly op: "begin";
  readonly db: number;
}

/** Commits (and waits until the commit is durable) or rolls back transaction `tx`. */
export interface EndRequest {
  readonly id: number;
  readonly op: "end";
  readonly tx: number;
  readonly commit: boolean;
}

export interface CloseRequest {
  readonly id: number;
  readonly op: "close";
  readonly db: number;
}

export type Request = OpenRequest | QueryRequest | BeginRequest | EndRequest | CloseRequest;

export type Reply =
  | { readonly id: number; readonly ok: true; readonly value?: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError };

/** An error as it crosses: its name, message and fields (PostgreSQL's `code`, `detail`, `constraint`...). */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly stack: string | undefined;
  readonly fields: Readonly<Record<string, string | number | boolean>>;
  readonly cause: WireError | undefined;
}

/**
 * Callers tell errors apart by their fields (SQLSTATE `23505`, `53100` for a full disk, errno `ENOSPC`), and look
 * through `cause`: those cross; functions and objects do not.
 */
export function toWire(error: unknown, depth = 0): WireError {
  if (!(error instanceof Error))
    return { name: "Error", message: String(error), stack: undefined, fields: {}, cause: undefined };
  const fields: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      fields[key] = value;
  }
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    fields,
    cause: error.cause !== undefined && depth < 4 ? toWire(error.cause, depth + 1) : undefined,
  };
}

/**
 * The error again, on the calling thread. Its stack is the caller's (where the statement was issued), with the
 * database thread's own below it: both halves of the story.
 */
export function fromWire(wire: WireError, callerStack?: string): Error {
  const error = new Error(wire.message, wire.cause ? { cause: fromWire(wire.cause) } : undefined);
  Object.assign(error, wire.fields);
  Object.defineProperty(error, "name", { value: wire.name, enumerable: false, configurable: true });
  const callers = callerStack?.split("\n").slice(1).join("\n");
  const threads = wire.stack?.split("\n").slice(1).join("\n");
  error.stack = [
    `${wire.name}: ${wire.message}`,
    callers,
    threads && `    (on the database's thread)\n${threads}`,
  ]
    .filter(Boolean)
    .join("\n");
  return error;
}
