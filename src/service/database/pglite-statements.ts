import { type PGlite, parse, protocol } from "@electric-sql/pglite";
import { PLAN_EACH_RUN } from "./plan-each-run.js";

/**
 * The store's statements on PGlite, each parsed and planned once. `PGlite.query` sends every
 * statement through six calls into PostgreSQL (parse, describe, bind, describe, execute, sync) and PostgreSQL
 * parses, analyses and plans its text again each time: for a small statement such as the submission's, that
 * work and the six messages cost several times the statement's own execution. Here a statement text is parsed
 * once as a named prepared statement (PostgreSQL keeps its plan, or a generic one once that is as cheap as
 * its custom plans), and each run is one call: bind, describe, execute and sync in one message (the decision:
 * docs/decisions.md; figures: docs/performance.md).
 *
 * What a caller sees is what `PGlite.query` gives: the same parameter serializers (by the types PostgreSQL
 * inferred), the same row parsers, PostgreSQL's own errors, PGlite's locks (one statement at a time; none
 * outside a transaction while one is open).
 */
export interface PreparedStatements {
  /** Runs `sql` with `params`; `inTransaction` when the caller holds PGlite's transaction (inside `db.transaction`). */
  query<Row>(sql: string, params: readonly unknown[] | undefined, inTransaction: boolean): Promise<Row[]>;
}

/**
 * Prepared statements a database keeps at most: the store's texts are constants, a hundred or so, but a text
 * built per call must not grow PostgreSQL's memory without bound. The least recently used is closed first.
 */
export const PREPARED_STATEMENTS_KEPT = 256;

/** Statements that a plan is kept for: the rest (DDL, `DO`, `SET`, `ANALYZE`...) run unnamed, as before. */
const PLANNED = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|VALUES)\b/i;

interface Prepared {
  readonly name: string;
  /** The parameters' types, as PostgreSQL inferred them: they choose each value's serializer. */
  readonly types: readonly number[];
}

/** Numbers statement names across the process: two sets of statements on one PGlite never clash. */
let named = 0;

export function preparedStatements(db: PGlite, kept = PREPARED_STATEMENTS_KEPT): PreparedStatements {
  /** By text, least recently used first (a Map keeps insertion order; a use moves the entry to the end). */
  const statements = new Map<string, Prepared>();
  /** Evicted statements, closed in the next message sent (one more may be held until then). */
  let closing: string[] = [];

  const run = async <Row>(
    sql: string,
    params: readonly unknown[],
    inTransaction: boolean,
  ): Promise<Row[]> => {
    const prelude = closing.map((name) => protocol.serialize.close({ type: "S", name }));
    closing = [];
    let statement = statements.get(sql);
    if (statement) {
      statements.delete(sql);
      statements.set(sql, statement);
    } else if (PLANNED.test(sql)) {
      const name = `routerjobs_${++named}`;
      const described = await db.execProtocolStream(
        concat([
          ...prelude.splice(0),
          protocol.serialize.parse({ name, text: sql }),
          protocol.serialize.describe({ type: "S", name }),
          protocol.serialize.sync(),
        ]),
        { syncToFs: false },
      );
      statement = { name, types: parse.parseDescribeStatementResults(described) };
      statements.set(sql, statement);
      if (statements.size > kept) {
        const [oldest] = statements;
        if (oldest) {
          statements.delete(oldest[0]);
          closing.push(oldest[1].name);
        }
      }
    } else if (sql.startsWith(PLAN_EACH_RUN)) {
      statement = await describeUnnamed(db, sql, prelude.splice(0));
    } else {
      // It may change the schema: a kept plan whose result type changes would fail ("cached plan must not
      // change result type"), so every kept statement is closed first, and prepared again when next used.
      for (const { name } of statements.values()) prelude.push(protocol.serialize.close({ type: "S", name }));
      statements.clear();
      statement = await describeUnnamed(db, sql, prelude.splice(0));
    }
    const values = params.map((value, index) => serialize(db, value, statement.types[index]));
    const messages = await db.execProtocolStream(
      concat([
        ...prelude,
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.describe({ type: "P" }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
      { syncToFs: false },
    );
    if (!inTransaction) await db.syncToFs();
    return (parse.parseResults(messages, db.parsers)[0]?.rows ?? []) as Row[];
  };

  return {
    query: <Row>(sql: string, params: readonly unknown[] | undefined, inTransaction: boolean) =>
      inTransaction
        ? db._runExclusiveQuery(() => run<Row>(sql, params ?? [], true))
        : db._runExclusiveTransaction(() => db._runExclusiveQuery(() => run<Row>(sql, params ?? [], false))),
  };
}

/** Parses `sql` as the unnamed statement (replaced by the next one), after `prelude`. */
async function describeUnnamed(db: PGlite, sql: string, prelude: Uint8Array[]): Promise<Prepared> {
  const described = await db.execProtocolStream(
    concat([
      ...prelude,
      protocol.serialize.parse({ text: sql }),
      protocol.serialize.describe({ type: "S" }),
      protocol.serialize.sync(),
    ]),
    { syncToFs: false },
  );
  return { name: "", types: parse.parseDescribeStatementResults(described) };
}

/** As `PGlite.query` serializes a parameter: by its type's serializer, else as text; null stays NULL. */
function serialize(db: PGlite, value: unknown, type: number | undefined): string | null {
  if (value === null || value === undefined) return null;
  const serializer = type === undefined ? undefined : db.serializers[type];
  return serializer ? serializer(value) : String(value);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}
