/**
 * Chaos: two service instances on one PostgreSQL, run as real `routerjobs service` processes, while
 * one team works against the other and the instances are killed (`SIGKILL`) and frozen (`SIGSTOP` past the
 * claim timeout, then `SIGCONT`). It prints:
 *
 * - isolation: the victim team's p50/p99 of a synchronous call and of an express job (submit to completed),
 *   alone and while the hostile team runs every attack at once: runaway scripts, catastrophic regular
 *   expressions (a statement and a `where`), jobs notifying 40 destinations that never answer and a closed
 *   port, long `:delay` jobs holding slots; phases interleaved for CHAOS_ROUNDS rounds (default 2), each
 *   reported, and the ratio of the p99s over all rounds (the goal: at most 2x);
 * - correctness under kills and freezes: of the victim's acknowledged jobs, how many are lost (not listed),
 *   run twice (their mark is on the router twice) or reported wrongly (completed without its mark, failed with
 *   it); the goal is 0 of each;
 * - 5xx answers to either team (the goal: 0; a killed or frozen instance drops connections, which clients
 *   retry on the other instance with the same Idempotency-Key, as a load balancer in front of two would).
 *
 * Needs PostgreSQL (ROUTERJOBS_TEST_DATABASE_URL, or initdb/pg_ctl on PATH); without it the bench says so.
 * CHAOS_PHASE_S (default 12) sets the length of each load phase; the freeze lasts the claim timeout plus 5 s.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { STALE_INSTANCE_MS } from "../src/service/instances.js";
import { type CliProcess, startCli } from "../test/helpers/cli.js";
import { postgresAvailability, startPostgres } from "../test/helpers/postgres.js";
import { type BenchReport, percentile, round } from "./harness.js";

const PHASE_MS = Number(process.env.CHAOS_PHASE_S ?? 12) * 1000;
const FREEZE_MS = STALE_INSTANCE_MS + 5_000;
const REQUEST_TIMEOUT_MS = 3_000;
const CALL_PATIENCE_MS = 120_000;

const team = (n: number) => `${n}0000000-0000-4000-8000-00000000000${n}`;
const router = (t: number, r: number) => `${t}${r}000000-0000-4000-8000-00000000000${r}`;
const token = (t: number) =>
  `${t}${t}000000-0000-4000-8000-000000000001:${team(t)}:${"Ch4osT0ken".repeat(6)}x${t}`;
const VICTIM = 1;
const HOSTILE = 2;
const VICTIM_ROUTERS = [1, 2, 3, 4].map((r) => router(VICTIM, r));
const HOSTILE_ROUTERS = [1, 2, 3, 4, 5, 6, 7, 8].map((r) => router(HOSTILE, r));

/** The issue's runaway: a 90-character script that doubles a nested array 25 times. */
const RUNAWAY = ":local a {1;2}; :for i from=1 to=25 do={ :set a {$a;$a} }; :put [:len [:tostr $a]]";

/**
 * A regular expression that backtracks catastrophically under a backtracking engine (the red team's 44 s
 * freeze), in a statement and in a `where` over a table of 200 entries.
 */
const REGEX_BOMB = [
  ':put ("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa>" ~ "(a+)+b")',
  ':for i from=1 to=200 do={ /ip/firewall/address-list/add list=bomb address=("10.9." . ($i / 250) . "." . ($i % 250)) comment="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa>" }',
  ':put [:len [/ip/firewall/address-list/find where comment~"(a+)+b"]]',
  "/ip/firewall/address-list/remove [find list=bomb]",
].join("\n");
const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 2);
/** Destinations that accept and never answer, taken one after the other (a gate per host:port). */
const BLACK_HOLES = 40;

interface Load {
  readonly syncMs: number[];
  readonly jobMs: number[];
}

/** The fields of a listed job the bench reads. */
interface ListedJob {
  readonly idempotency_key: string;
  readonly status: string;
}

interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the bench reads the fields it needs
  readonly body: any;
}

/** Two instances behind a "load balancer": a call that gets no answer is tried on the other instance. */
class Instances {
  readonly fiveHundreds: string[] = [];
  private next = 0;
  constructor(
    readonly urls: readonly string[],
    private readonly dispatcher: Agent,
  ) {}

  async call(
    method: "GET" | "POST",
    path: string,
    who: number,
    body?: unknown,
    key?: string,
  ): Promise<Answer> {
    let last = "";
    // Both instances may be down at once for a while (one restarting after its kill while the machine is
    // loaded, the other frozen): a call keeps trying for as long as a load balancer's client would wait.
    const giveUpAt = Date.now() + CALL_PATIENCE_MS;
    for (let attempt = 0; Date.now() < giveUpAt; attempt++) {
      const url = this.urls[(this.next++ + attempt) % this.urls.length] as string;
      try {
        const response = await request(`${url}${path}`, {
          method,
          dispatcher: this.dispatcher,
          headersTimeout: REQUEST_TIMEOUT_MS,
          bodyTimeout: REQUEST_TIMEOUT_MS,
          headers: {
            authorization: `Bearer ${token(who)}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
            ...(key ? { "idempotency-key": key } : {}),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.body.text();
        if (response.statusCode >= 500)
          this.fiveHundreds.push(`${response.statusCode} ${method} ${path}: ${text}`);
        if (response.statusCode === 429 || response.statusCode >= 500) {
          last = `${url}: ${response.statusCode} ${text.slice(0, 200)}`;
          continue;
        }
        return { status: response.statusCode, body: text ? JSON.parse(text) : undefined };
      } catch (error) {
        // killed or frozen: the other instance answers (the same Idempotency-Key makes a retry safe)
        last = `${url}: ${(error as Error).message}`;
        await pause(100);
      }
    }
    throw new Error(
      `${method} ${path}: no instance answered in ${CALL_PATIENCE_MS / 1000} s (last: ${last})`,
    );
  }
}

/** Accepts connections and never answers: a notify_url that hangs every delivery until its timeout. */
function blackHole(): Promise<{ port: number; close(): void }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: (server.address() as { port: number }).port,
        close: () => {
          for (const socket of sockets) socket.destroy();
          server.close();
        },
      }),
    ),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const until = (deadline: number) => Date.now() < deadline;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run(): Promise<BenchReport> {
  const title = "chaos: two instances, a hostile team, kills and freezes";
  const availability = postgresAvailability();
  if (!availability.available) {
    return { title, metrics: { skipped: true }, lines: [`skipped: ${availability.reason}`] };
  }
  const postgres = await startPostgres();
  const dir = await mkdtemp(join(tmpdir(), "rj-chaos-"));
  const holes = await Promise.all(Array.from({ length: BLACK_HOLES }, () => blackHole()));
  const closedPort = await freePort();
  const dispatcher = new Agent({ connections: 64 });
  const started: CliProcess[] = [];
  try {
    const seed = join(dir, "seed.json");
    await writeFile(
      seed,
      JSON.stringify({
        teams: [
          {
            id: team(VICTIM),
            tokens: [token(VICTIM)],
            routers: VICTIM_ROUTERS.map((id, i) => ({ id, name: `v${i}` })),
          },
          {
            id: team(HOSTILE),
            tokens: [token(HOSTILE)],
            routers: HOSTILE_ROUTERS.map((id, i) => ({ id, name: `h${i}` })),
          },
        ],
      }),
    );
    const ports = [await freePort(), await freePort()];
    const startInstance = async (index: number) => {
      const cli = startCli([
        "service",
        "--listen",
        `127.0.0.1:${ports[index]}`,
        "--data",
        join(dir, `instance-${index}`),
        "--database",
        postgres.url,
        "--seed",
        seed,
        "--rate-limit",
        "100000/1m",
        "--tick",
        "200ms",
        "--notify-allow",
        "127.0.0.1",
        "--no-portal",
        "--log-level",
        "silent",
      ]);
      started.push(cli);
      await cli.printed(/listening on (\S+)/, `instance ${index}`);
      return cli;
    };
    const instances = [await startInstance(0), await startInstance(1)];
    const api = new Instances(
      ports.map((port) => `http://127.0.0.1:${port}`),
      dispatcher,
    );

    // The victim's work: a synchronous read, and an express job whose mark (a unique address-list entry) shows
    // at the router how many times it ran.
    let jobNumber = 0;
    const acknowledged: { key: string; routerId: string; mark: string }[] = [];
    const submitMarked = async () => {
      const n = ++jobNumber;
      const routerId = VICTIM_ROUTERS[n % VICTIM_ROUTERS.length] as string;
      const mark = `j${n}`;
      const key = randomUUID();
      const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      const answer = await api.call(
        "POST",
        `/api/asynchronous/${routerId}`,
        VICTIM,
        {
          description: mark,
          script: `/ip/firewall/address-list/add list=runs address=${address} comment=${mark}`,
          express_execute: true,
          make_backup: false,
        },
        key,
      );
      if (answer.status !== 202)
        throw new Error(`victim submission refused: ${answer.status} ${JSON.stringify(answer.body)}`);
      acknowledged.push({ key, routerId, mark });
      return { key, routerId };
    };
    const jobOf = async (routerId: string, key: string) => {
      const list = await api.call("GET", `/api/routers/${routerId}/jobs`, VICTIM);
      return (list.body.data as ListedJob[]).find((job) => job.idempotency_key === key);
    };
    const victimLoad = async (ms: number): Promise<Load> => {
      const syncMs: number[] = [];
      const jobMs: number[] = [];
      const deadline = Date.now() + ms;
      await Promise.all([
        (async () => {
          while (until(deadline)) {
            const routerId = VICTIM_ROUTERS[syncMs.length % VICTIM_ROUTERS.length] as string;
            const t0 = performance.now();
            await api.call("POST", `/api/synchronous/${routerId}`, VICTIM, {
              command: "/system/identity/print",
            });
            syncMs.push(performance.now() - t0);
          }
        })(),
        (async () => {
          while (until(deadline)) {
            const t0 = performance.now();
            const { key, routerId } = await submitMarked();
            for (;;) {
              const job = await jobOf(routerId, key);
              if (job && ["completed", "failed", "deleted"].includes(job.status)) break;
              await pause(20);
            }
            jobMs.push(performance.now() - t0);
          }
        })(),
      ]);
      return { syncMs, jobMs };
    };

    // Phases 1 and 2, interleaved for ROUNDS rounds: the victim alone, then while the hostile team runs every
    // attack of the red team's report at once.
    const attack = (deadline: number) =>
      Promise.all([
        // Slots held for the whole attacked phase and no longer, so that the next round's victim is alone.
        ...HOSTILE_ROUTERS.slice(4).map((routerId) =>
          api.call("POST", `/api/asynchronous/${routerId}`, HOSTILE, {
            description: "hold a slot",
            script: `:delay ${Math.ceil(PHASE_MS / 1000)}s`,
            express_execute: true,
          }),
        ),
        // Runaway memory, and catastrophic regular expressions (a statement and a `where` over a table).
        ...[0, 1].map(async (i) => {
          while (until(deadline)) {
            await api.call("POST", `/api/asynchronous/${HOSTILE_ROUTERS[i]}`, HOSTILE, {
              description: "runaway",
              script: i === 0 ? RUNAWAY : REGEX_BOMB,
              express_execute: true,
            });
            await pause(250);
          }
        }),
        // Notifications to destinations that never answer (one port after the other), and to a closed port.
        (async () => {
          for (let n = 0; until(deadline); n++) {
            const port = n % 2 === 0 ? holes[(n / 2) % holes.length]?.port : closedPort;
            await api.call("POST", `/api/asynchronous/${HOSTILE_ROUTERS[2 + (n % 2)]}`, HOSTILE, {
              description: "notify nobody",
              script: "/log info hello",
              express_execute: true,
              notify_url: `https://127.0.0.1:${port}/hook`,
            });
            await pause(50);
          }
        })(),
      ]);
    const rounds: { alone: Load; attacked: Load }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const alone = await victimLoad(PHASE_MS);
      const hostile = attack(Date.now() + PHASE_MS);
      const attacked = await victimLoad(PHASE_MS);
      await hostile;
      rounds.push({ alone, attacked });
    }
    const all = (phase: "alone" | "attacked", kind: keyof Load) => rounds.flatMap((r) => r[phase][kind]);
    const alone = { syncMs: all("alone", "syncMs"), jobMs: all("alone", "jobMs") };
    const underAttack = { syncMs: all("attacked", "syncMs"), jobMs: all("attacked", "jobMs") };

    // Phase 3: kills and a freeze while the victim keeps submitting (no waiting for each job).
    const chaosDeadline = Date.now() + 2 * PHASE_MS + FREEZE_MS;
    let kills = 0;
    const chaos = (async () => {
      for (const index of [0, 1]) {
        await pause(PHASE_MS / 3);
        instances[index]?.child.kill("SIGKILL");
        await instances[index]?.exited;
        kills++;
        instances[index] = await startInstance(index);
      }
      const frozen = instances[0] as CliProcess;
      frozen.child.kill("SIGSTOP");
      await pause(FREEZE_MS);
      frozen.child.kill("SIGCONT");
    })();
    while (until(chaosDeadline)) {
      await submitMarked();
      await pause(50);
    }
    await chaos;

    // Settle: every acknowledged job ends, then compare the job lists with the marks on the routers.
    const settleDeadline = Date.now() + 120_000;
    let lists = new Map<string, ListedJob[]>();
    for (;;) {
      lists = new Map();
      for (const routerId of VICTIM_ROUTERS) {
        lists.set(routerId, (await api.call("GET", `/api/routers/${routerId}/jobs`, VICTIM)).body.data);
      }
      const open = [...lists.values()]
        .flat()
        .filter((job) => ["pending", "loaded", "running"].includes(job.status));
      if (open.length === 0 || !until(settleDeadline)) break;
      await pause(500);
    }
    const marks = new Map<string, number>();
    for (const routerId of VICTIM_ROUTERS) {
      const entries = await api.call("POST", `/api/synchronous/${routerId}`, VICTIM, {
        command: "/ip/firewall/address-list/print",
      });
      for (const entry of entries.body.data as { comment?: string }[]) {
        if (entry.comment) marks.set(entry.comment, (marks.get(entry.comment) ?? 0) + 1);
      }
    }
    let lost = 0;
    let twice = 0;
    let wrong = 0;
    let unfinished = 0;
    for (const job of acknowledged) {
      const listed = (lists.get(job.routerId) ?? []).filter((row) => row.idempotency_key === job.key);
      if (listed.length === 0) lost++;
      if (listed.length > 1) twice++;
      const count = marks.get(job.mark) ?? 0;
      if (count > 1) twice++;
      const status = listed[0]?.status;
      if (status === "completed" && count !== 1) wrong++;
      else if (status === "failed" && count !== 0) wrong++;
      else if (status !== "completed" && status !== "failed") unfinished++;
    }

    const p = (values: number[], q: number) => round(percentile(values, q), 1);
    const syncRatio = round(p(underAttack.syncMs, 99) / p(alone.syncMs, 99), 2);
    const jobRatio = round(p(underAttack.jobMs, 99) / p(alone.jobMs, 99), 2);
    return {
      title,
      metrics: {
        syncP50AloneMs: p(alone.syncMs, 50),
        syncP99AloneMs: p(alone.syncMs, 99),
        syncP50AttackedMs: p(underAttack.syncMs, 50),
        syncP99AttackedMs: p(underAttack.syncMs, 99),
        syncP99Ratio: syncRatio,
        jobP50AloneMs: p(alone.jobMs, 50),
        jobP99AloneMs: p(alone.jobMs, 99),
        jobP50AttackedMs: p(underAttack.jobMs, 50),
        jobP99AttackedMs: p(underAttack.jobMs, 99),
        jobP99Ratio: jobRatio,
        acknowledged: acknowledged.length,
        kills,
        freezes: 1,
        freezeMs: FREEZE_MS,
        lost,
        ranTwice: twice,
        reportedWrongly: wrong,
        unfinished,
        fiveHundreds: api.fiveHundreds.length,
      },
      lines: [
        `victim alone:      sync p50 ${p(alone.syncMs, 50)} ms p99 ${p(alone.syncMs, 99)} ms (${alone.syncMs.length} calls); job p50 ${p(alone.jobMs, 50)} ms p99 ${p(alone.jobMs, 99)} ms (${alone.jobMs.length} jobs)`,
        `victim attacked:   sync p50 ${p(underAttack.syncMs, 50)} ms p99 ${p(underAttack.syncMs, 99)} ms (${underAttack.syncMs.length} calls); job p50 ${p(underAttack.jobMs, 50)} ms p99 ${p(underAttack.jobMs, 99)} ms (${underAttack.jobMs.length} jobs)`,
        ...rounds.map(
          (r, i) =>
            `round ${i + 1}: sync p99 alone ${p(r.alone.syncMs, 99)} ms, attacked ${p(r.attacked.syncMs, 99)} ms; job p99 alone ${p(r.alone.jobMs, 99)} ms, attacked ${p(r.attacked.jobMs, 99)} ms`,
        ),
        `p99 attacked/alone over ${ROUNDS} rounds: sync ${syncRatio}x, job ${jobRatio}x (goal <= 2x)`,
        `under ${kills} kills and 1 freeze of ${FREEZE_MS / 1000} s: ${acknowledged.length} acknowledged, ${lost} lost, ${twice} ran twice, ${wrong} reported wrongly, ${unfinished} unfinished (goal 0 of each)`,
        `5xx answers: ${api.fiveHundreds.length}${api.fiveHundreds.length ? ` (first: ${api.fiveHundreds[0]?.slice(0, 200)})` : ""} (goal 0)`,
      ],
    };
  } finally {
    for (const cli of started) {
      cli.child.kill("SIGCONT");
      await cli.stop();
    }
    for (const hole of holes) hole.close();
    await dispatcher.close();
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
