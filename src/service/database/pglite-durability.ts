import { fsyncSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import { GroupCommit } from "./group-commit.js";

/**
 * PGlite, as shipped, acknowledges a commit from the page cache: it starts PostgreSQL with `-F` (fsync off),
 * and emscripten's NODEFS has no `fsync` (PostgreSQL's fsync() returns 0 having done nothing; its
 * `relaxedDurability` option only concerns browser file systems). A power loss could then lose acknowledged
 * submissions and notifications, and even corrupt the directory: a checkpoint could reach the disk before
 * the pages it covers.
 * Here PostgreSQL runs with fsync on, over a NODEFS whose fsync is the real one, so its checkpoints and WAL
 * writes are as safe as PostgreSQL's own. Commits are asynchronous (`synchronous_commit=off`: a commit does
 * not wait for the disk) and `flushWal` makes them durable in groups: one WAL fsync covers every commit
 * made before it, so N concurrent requests pay for about one fsync instead of N.
 */

/** emscripten's NODEFS stream, as far as fsync needs it: `nfd` is Node's own file descriptor. */
interface NodefsStream {
  readonly nfd?: number;
}

interface NodefsModule {
  NODEFS?: { stream_ops: Record<string, unknown>; tryFSOperation?: (operation: () => void) => unknown };
}

/** NODEFS with a real fsync: PostgreSQL's fsync() of a data directory file reaches the disk. */
export class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]): ReturnType<NodeFS["init"]> {
    const result = await super.init(pg, opts);
    const preRun = result.emscriptenOpts.preRun ?? [];
    result.emscriptenOpts.preRun = [
      ...(Array.isArray(preRun) ? preRun : [preRun]),
      (module: NodefsModule) => {
        // Refuse to run without it: a store that silently acknowledges from the page cache is the bug fixed.
        if (!module.NODEFS) throw new Error("PGlite's NODEFS is missing: cannot make commits durable");
        const nodefs = module.NODEFS;
        nodefs.stream_ops.fsync = (stream: NodefsStream) => {
          if (stream.nfd === undefined) return 0;
          const sync = () => fsyncSync(stream.nfd as number);
          // As NODEFS's own operations do: a failed fsync reaches PostgreSQL as its errno (it then refuses the
          // commit) instead of a JavaScript exception unwinding through the wasm.
          if (nodefs.tryFSOperation) nodefs.tryFSOperation(sync);
          else sync();
          return 0;
        };
      },
    ];
    return result;
  }
}

/**
 * PGlite's own start parameters without `-F` (fsync off), plus the WAL sync method that goes through
 * fsync(): emscripten's fdatasync is a stub, and `open_datasync` needs an open flag NODEFS refuses.
 */
export function durableStartParams(): string[] {
  const defaults = (PGlite as unknown as { defaultStartParams?: unknown }).defaultStartParams;
  if (!Array.isArray(defaults))
    throw new Error("PGlite.defaultStartParams is missing: cannot start it durably");
  return [
    ...defaults.filter((param) => param !== "-F"),
    ...["-c", "wal_sync_method=fsync", "-c", "synchronous_commit=off"],
  ];
}

/**
 * `pg_logical_emit_message(..., flush => true)` writes a small WAL record and flushes the WAL up to it, which
 * covers every commit before it. (A transaction that only takes an xid would not do: it commits
 * asynchronously, having written no WAL before its commit record.) Only when the WAL has grown since the last
 * flush: reads write no WAL, need no fsync and must not pay for one. One statement, so one call into PGlite.
 */
const FLUSH_WAL = `SELECT CASE WHEN pg_current_wal_insert_lsn() > pg_current_wal_flush_lsn()
  THEN pg_logical_emit_message(false, 'routerjobs', '', true) END AS flushed_to`;

/** Runs a statement outside any transaction (PGlite's `query`, or the store's prepared statements). */
export type RunStatement = (sql: string) => Promise<unknown>;

export interface WalFlusher {
  /** A statement or transaction that may have written WAL has completed. */
  noteWrite(): void;
  /**
   * Resolves once every write noted before the call is on stable storage: at once when every one of them is
   * already covered by a flush (a read after the last flush costs no query), else with the next flush. Calls
   * made while a flush runs share the next one (group commit).
   */
  durable(): Promise<void>;
}

export function walFlusher(run: RunStatement): WalFlusher {
  /** Writes noted so far, and how many of them the last completed flush covers (those noted before it began). */
  let written = 0;
  let flushed = 0;
  const group = new GroupCommit<undefined, undefined>(async (items) => {
    const covering = written;
    await run(FLUSH_WAL);
    flushed = Math.max(flushed, covering);
    return items.map(() => undefined);
  }, Number.POSITIVE_INFINITY);
  return {
    noteWrite: () => {
      written++;
    },
    durable: () => (flushed >= written ? Promise.resolve() : group.submit(undefined)),
  };
}

/**
 * Whether a statement may write WAL: anything but a query (`SELECT`, or `WITH` whose parts are all queries) that
 * locks no row (a row lock, `FOR UPDATE`, is written too). A read is still answered only once the writes before
 * it are flushed; it just does not ask for a flush when there are none. Any `INSERT`, `UPDATE`, `DELETE` or
 * `MERGE` in the text counts, even in a string, since a write taken for a read would be acknowledged before it
 * is on disk, while a read taken for a write costs only a look at the WAL.
 */
export function mayWrite(sql: string): boolean {
  // A leading comment (`PLAN_EACH_RUN`, pglite-statements.ts) says how to plan the statement, not what it does.
  return (
    !/^\s*(?:\/\*[^*]*\*\/\s*)*(?:SELECT|WITH)\b/i.test(sql) ||
    /\b(?:INSERT|UPDATE|DELETE|MERGE)\b/i.test(sql) ||
    /\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b/i.test(sql)
  );
}
