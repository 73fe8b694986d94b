/**
 * The whole job list is streamed a chunk at a time as the database writes it (src/service/http/routes/jobs): what a
 * client sees when the database fails before the first chunk or after it, and what becomes of the router's turn
 * and of the chunks still to read when the client goes away mid-list.
 *
 * The database is a real PGlite; only its failures are injected, by a wrapper that sees each of the list's
 * chunk queries before PGlite does (a database cannot be made to fail between two given statements otherwise).
 */
import Fastify, { type FastifyInstance } from "fastify";
import { Agent, request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import serviceApp, { serverOptions } from "../../../src/service/app.js";
import { resolveConfig } from "../../../src/service/config.js";
import { type Database, openDatabase, type Queryable } from "../../../src/service/database/database.js";
import { LIST_CHUNK } from "../../../src/service/jobs/job-page.js";
import { applySeed } from "../../../src/service/seed.js";
import { waitFor, within } from "../../helpers/wait-for.js";
import { newBackend } from "../backend.js";
import { ROUTER_A2, SEED, TEAM_A, TOKEN_A } from "../harness.js";

/** Jobs of the listed router: three chunks of the list (job-page.ts), the last one partly full. */
const JOBS = 2 * LIST_CHUNK + 50;

/** Whether `sql` is the list's chunk query (src/service/jobs/job-page.ts, `jsonChunk`). */
const isListChunk = (sql: string) => /string_agg\(\(row_to_json\(chunk\)\)/.test(sql);

/**
 * A real database whose list chunk queries pass through `beforeChunk` first (numbered from 1 since the last
 * reset): it may throw, as a database that went away does, or hold the query until the test lets it go.
 */
class ChunkFaults implements Database {
  readonly kind: Database["kind"];
  chunks = 0;
  beforeChunk: (count: number) => Promise<void> | void = () => {};

  constructor(private readonly real: Database) {
    this.kind = real.kind;
  }

  reset(): void {
    this.chunks = 0;
    this.beforeChunk = () => {};
  }

  query: Queryable["query"] = async (sql, params) => {
    if (isListChunk(sql)) await this.beforeChunk(++this.chunks);
    return this.real.query(sql, params);
  };

  transaction: Database["transaction"] = (fn) => this.real.transaction(fn);
  close = () => this.real.close();
}

describe("the streamed job list when the database or the client fails", () => {
  let db: ChunkFaults;
  let app: FastifyInstance;
  let url: string;
  const dispatcher = new Agent();

  beforeAll(async () => {
    db = new ChunkFaults(await openDatabase({ location: "memory://" }));
    app = Fastify(serverOptions());
    await app.register(serviceApp, {
      config: resolveConfig({ database: "memory://" }),
      backend: newBackend(),
      db,
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    await applySeed(app.db, SEED as never);
    await app.db.query(
      `INSERT INTO jobs (id, router_id, team_id, seq_id, token, idempotency_key, request_id, request_hash,
         description, script, make_backup, express_execute, needs_acknowledgement, status, execution, created_at)
       SELECT gen_random_uuid(), $1, $2, n, md5(n::text), gen_random_uuid(), gen_random_uuid(), 'h',
         'job ' || n, '/log info x', false, false, false, 'completed', 'done', now()
       FROM generate_series(1, $3::int) AS n`,
      [ROUTER_A2, TEAM_A, JOBS],
    );
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/routers/${ROUTER_A2}/jobs`;
  });
  afterEach(() => db.reset());
  afterAll(async () => {
    db?.reset();
    app?.server.closeAllConnections();
    await app?.close();
    await db?.close();
    await dispatcher.destroy();
  });

  const ask = () => request(url, { dispatcher, headers: { authorization: `Bearer ${TOKEN_A}` } });
  /** The whole list, read to its end and parsed. */
  const wholeList = async () => {
    const response = await ask();
    return { status: response.statusCode, body: (await response.body.json()) as { data: unknown[] } };
  };

  it("answers a database failing before the first chunk as an error: an envelope, no list, no internals", async () => {
    db.beforeChunk = () => {
      throw new Error("Connection terminated: SELECT string_agg(row_to_json(chunk)) at /srv/secret-path");
    };
    const response = await ask();
    const text = await response.body.text();
    expect(response.statusCode).toBe(500);
    const body = JSON.parse(text);
    expect(body).toMatchObject({
      status: "error",
      error: { code: "internal_error", message: "internal error; the request id identifies it" },
    });
    expect(body.error.request_id).toBe(response.headers["x-request-id"]);
    expect(text).not.toMatch(/string_agg|secret-path|at \w+ \(/);
    // The router's turn ended with the answer: its next list is whole.
    db.reset();
    const next = await wholeList();
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(JOBS);
  });

  it("cuts the answer short when the database fails after the first chunk: no client reads it as a whole list", async () => {
    db.beforeChunk = (count) => {
      if (count === 2) throw new Error("Connection terminated");
    };
    const response = await ask();
    // The status line went out with the first chunk...
    expect(response.statusCode).toBe(200);
    expect(response.headers["transfer-encoding"]).toBe("chunked");
    // ...and the connection ends without the chunked body's last chunk: reading the body fails, whatever it held.
    await expect(response.body.text()).rejects.toThrow();
    expect(db.chunks).toBe(2);
    db.reset();
    const next = await wholeList();
    expect(next.status).toBe(200);
    expect(next.body.data).toHaveLength(JOBS);
  });

  it("frees the router's turn when its client goes away mid-list, and reads no chunk for it after the one in flight", async () => {
    // GIVEN a list whose second chunk the database holds, its first chunk on its way to the client
    let reached!: () => void;
    const atSecondChunk = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let letGo!: () => void;
    const released = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    db.beforeChunk = async (count) => {
      if (count !== 2) return;
      reached();
      await released;
    };
    const controller = new AbortController();
    const first = await request(url, {
      dispatcher,
      headers: { authorization: `Bearer ${TOKEN_A}` },
      signal: controller.signal,
    });
    expect(first.statusCode).toBe(200);
    await within(atSecondChunk, { what: "the list to ask for its second chunk", timeoutMs: 60_000 });
    // WHEN its client goes away
    controller.abort();
    await first.body.text().catch(() => undefined);
    // THEN the router's next list takes its turn while the departed list's chunk is still in the database's
    // hands (the turn ended when the client left, not when the chunks were read), and waits in the line of
    // bulk statements, which run one at a time as the database does (interactive-first.ts)
    db.beforeChunk = () => {};
    const next = wholeList();
    await waitFor(() => app.interactiveFirst.waiting === 1, { what: "the next list's first chunk to wait" });
    // AND once the held chunk is read, the departed list stops: its third chunk is never asked for
    letGo();
    const served = await within(next, { what: "the router's next list", timeoutMs: 60_000 });
    expect(served.status).toBe(200);
    expect(served.body.data).toHaveLength(JOBS);
    // 2 chunk queries of the departed list, 3 of the next; the list after them is the positive sign that the
    // departed list asked for nothing more (statements run one at a time, in order)
    expect(db.chunks).toBe(5);
    const after = await within(wholeList(), { what: "the list after that", timeoutMs: 60_000 });
    expect(after.body.data).toHaveLength(JOBS);
    expect(db.chunks).toBe(8);
  });
});
