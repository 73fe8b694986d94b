/**
 * What confirming one job costs in requests and bytes as the router's history grows (10, 1,000, 10,000 jobs):
 * `routerjobs apply` (in process, polling) through the sites API reading the job alone (`GET
 * /sites/{id}/jobs/{jobId}`, the one-job read) against the same apply reading the list (the baseline: the
 * sites API's list, what confirming sent before the one-job read), and the spec profile's filtered lookup (our
 * service's extension) beside them. A plain HTTP proxy in front of our service counts each request and the
 * bytes of each answer's body, by kind: the exactly-once lookup before the submission, the submission, and
 * the confirmation's looks. Goal: a look's cost flat in the history, one request per look.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { RouterJobsClient } from "../src/client/client.js";
import type { RouterJobsClientOptions } from "../src/client/options.js";
import { type ApplyContext, applyJob } from "../src/deploy/apply/apply.js";
import { Journal } from "../src/deploy/apply/journal.js";
import { declareJob } from "../test/helpers/declared-job.js";
import { ROUTER_A, startTestService, TEAM_A, TOKEN_A } from "../test/service/harness.js";
import { type BenchReport, round } from "./harness.js";
import { seedHistory } from "./job-list-isolation.bench.js";

const HISTORIES = [10, 1_000, 10_000] as const;
const JOBS = Number(process.env.CONFIRM_REQUESTS_JOBS ?? 5);

type Kind = "lookup" | "submit" | "look";
interface Tally {
  requests: number;
  bytes: number;
}

/** The sites API without its one-job read: confirms by the list, as every profile did before. */
class ListReadClient extends RouterJobsClient {
  override get offersOneJob(): boolean {
    return false;
  }
}

const MODES = [
  {
    key: "oneJob",
    name: "sdx, one-job read",
    make: (o: RouterJobsClientOptions) => new RouterJobsClient(o),
    api: "sdx",
  },
  {
    key: "listRead",
    name: "sdx, list read (baseline)",
    make: (o: RouterJobsClientOptions) => new ListReadClient(o),
    api: "sdx",
  },
  {
    key: "specLookup",
    name: "spec, filtered lookup",
    make: (o: RouterJobsClientOptions) => new RouterJobsClient(o),
    api: "spec",
  },
] as const;

/** Which part of a confirmation a request is: a submission, a look at one job or the list after it, or before. */
function kindOf(method: string, submitted: boolean): Kind {
  if (method === "POST") return "submit";
  return submitted ? "look" : "lookup";
}

export async function run(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), "rj-bench-confirm-requests-"));
  const service = await startTestService({ tickMs: 50, rateLimit: { count: 1_000_000, windowMs: 1000 } });
  const upstream = new Agent({ connect: { ca: service.service.ca } });
  let submitted = false;
  let tally: Record<Kind, Tally> = fresh();
  const proxy = await listen(async (incoming, body) => {
    const kind = kindOf(incoming.method ?? "GET", submitted);
    if (kind === "submit") submitted = true;
    const answer = await request(`${service.url}${incoming.url}`, {
      method: incoming.method as "GET",
      headers: { ...incoming.headers, host: new URL(service.url).host },
      body: body.length > 0 ? body : undefined,
      dispatcher: upstream,
    });
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    tally[kind].requests++;
    tally[kind].bytes += bytes.length;
    return { status: answer.statusCode, headers: answer.headers, body: bytes };
  });
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const results: Record<string, Record<number, Record<Kind, Tally>>> = {};
  try {
    // Attaches the simulated router before the history is written behind it.
    await service.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/system/identity/set", parameters: "=name=bench" },
    });
    let seeded = 0;
    for (const history of HISTORIES) {
      const { rows } = await service.service.app.db.query<{ next: number }>(
        "SELECT next_seq AS next FROM routers WHERE id = $1",
        [ROUTER_A],
      );
      const from = Math.max(Number(rows[0]?.next ?? 1), 1);
      const missing = history - seeded;
      if (missing > 0)
        await seedHistory(service.service.app.db, {
          routerId: ROUTER_A,
          teamId: TEAM_A,
          from,
          to: from + missing - 1,
        });
      await service.service.app.db.query("ANALYZE jobs");
      seeded = history;
      for (const mode of MODES) {
        const perMode = results[mode.key] ?? {};
        results[mode.key] = perMode;
        tally = fresh();
        for (let index = 0; index < JOBS; index++) {
          submitted = false;
          const stateDir = await mkdtemp(join(dir, "state-"));
          const client = mode.make({
            baseUrl: proxyUrl,
            token: TOKEN_A,
            api: mode.api,
            budgetDir: stateDir,
            rateLimit: { count: 1_000_000, windowMs: 1000 },
          });
          const job = declareJob(ROUTER_A, `bench/${mode.key}/${history}/${index}`, {
            script: `/system identity set name=${mode.key}-${history}-${index}`,
            makeBackup: false,
            timeoutMs: 60_000,
          });
          const context: ApplyContext = {
            client,
            journal: new Journal(stateDir),
            instanceId: randomUUID(),
            write: () => {},
          };
          const result = await applyJob(job, context);
          await client.close();
          if (result.outcome !== "completed") throw new Error(`${mode.name}: job ${index} ${result.outcome}`);
        }
        perMode[history] = tally;
      }
      // The jobs this round submitted are history for the next.
      seeded += MODES.length * JOBS;
    }
  } finally {
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    await upstream.close();
    await service.close();
    await rm(dir, { recursive: true, force: true });
  }
  const per = (tallyOf: Tally) => ({ requests: tallyOf.requests / JOBS, bytes: tallyOf.bytes / JOBS });
  const metrics: Record<string, number> = {};
  const lines = [
    `${JOBS} express jobs per mode and history, each a whole 'apply' (in process, polling) through a counting proxy`,
    "per confirmed job: lookup before submitting | submission | confirmation looks (requests, answer bytes), bytes per look",
  ];
  for (const mode of MODES) {
    for (const history of HISTORIES) {
      const tallies = results[mode.key]?.[history] ?? fresh();
      const lookup = per(tallies.lookup);
      const look = per(tallies.look);
      const bytesPerLook = tallies.look.requests === 0 ? 0 : tallies.look.bytes / tallies.look.requests;
      const key = `${mode.key}${history}`;
      metrics[`${key}LookRequests`] = round(look.requests, 2);
      metrics[`${key}BytesPerLook`] = Math.round(bytesPerLook);
      metrics[`${key}LookupBytes`] = Math.round(lookup.bytes);
      metrics[`${key}TotalBytes`] = Math.round(lookup.bytes + per(tallies.submit).bytes + look.bytes);
      lines.push(
        `${mode.name.padEnd(26)} ${String(history).padStart(6)} jobs: lookup ${round(lookup.requests, 1)} req ${kb(lookup.bytes)} | submit ${round(per(tallies.submit).requests, 1)} req | looks ${round(look.requests, 1)} req ${kb(look.bytes)}, ${kb(bytesPerLook)} per look`,
      );
    }
  }
  return { title: "requests and bytes per confirmed job, one-job read against list read", metrics, lines };
}

function fresh(): Record<Kind, Tally> {
  return {
    lookup: { requests: 0, bytes: 0 },
    submit: { requests: 0, bytes: 0 },
    look: { requests: 0, bytes: 0 },
  };
}

const kb = (bytes: number) => (bytes < 1024 ? `${Math.round(bytes)} B` : `${round(bytes / 1024, 1)} KB`);

/** A plain HTTP front for the service: each request read whole, answered with what `handle` returns. */
async function listen(
  handle: (
    incoming: IncomingMessage,
    body: Buffer,
  ) => Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>,
): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      handle(incoming, Buffer.concat(chunks)).then(
        ({ status, headers, body }) => {
          const {
            "transfer-encoding": _chunked,
            connection: _connection,
            "content-length": _length,
            ...rest
          } = headers;
          outgoing.writeHead(status, { ...rest, "content-length": body.length });
          outgoing.end(body);
        },
        (error: unknown) => {
          outgoing.writeHead(502);
          outgoing.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}
