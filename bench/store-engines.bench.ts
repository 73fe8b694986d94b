/**
 * The embedded store's engines side by side (issue 20: submit throughput >= 1/3 of a bare Fastify route):
 * async submissions per second through HTTP at 1 and 8 in flight, each server in a process of its own on the
 * same Node, against a bare Fastify route with the same path in the same run; the server's CPU time per
 * submission (PostgreSQL's processes included), which the machine's other work disturbs less than throughput;
 * and each server's memory.
 * - `route <engine>`: the submission route alone (bench/store-engines-server.ts: the service's server options,
 *   schemas, authentication and rate limit, then the store's statements in their transaction) on
 *   - memory: no database (the token and the jobs in a Map): the route's own cost, the ceiling of any engine;
 *   - pglite-durable: PGlite as the store ships it (openDatabase: fsync, one WAL flush per group of commits);
 *   - pglite-nofsync: the same PGlite started as PGlite does by default (fsync off: the page cache);
 *   - sqlite-full: SQLite (node:sqlite), WAL, synchronous=FULL: SQLite fsyncs the WAL in every COMMIT;
 *   - sqlite-group: SQLite, WAL, synchronous=NORMAL plus one fsync of the WAL per group of commits, each 2xx
 *     after the fsync that covers its commit (the PGlite flusher's scheme; bench/store-engines-sqlite.ts);
 *   - sqlite-nofsync: SQLite, WAL, synchronous=NORMAL, no fsync before the 2xx (SQLite without the disk);
 *   - postgres: PostgreSQL 15 on loopback through `pg`, fsync and synchronous_commit on, and its rate limit
 *     in the database as the service keeps it there (one more transaction per request).
 * - `service <engine>`: the real service (createApp) on PGlite and PostgreSQL: what it adds around the route.
 * node:sqlite needs Node >= 22.13 (unflagged): every variant runs on Node 22 (BENCH_NODE22, else the registry's
 * node-linux-<arch>@22 installed in a temporary folder as .ci/run does), and PGlite again on this Node when it
 * is older. All servers run at once, idle but for the one measured; rounds interleave them, figures are medians.
 *
 * Measured 2026-11-27 on the shared 2-core machine (load average 1 at the start, 4.5 at the end; an 8 kB fsync
 * 0.09-0.12 ms), Node 22.23 unless named: submissions/s, their ratio to the bare route on the same Node in the
 * same run, and the server's CPU per submission; RSS of the server process idle / after the rounds. Throughput
 * moved by up to 2x between four runs (docs/decisions.md has the ranges); CPU per submission moved less
 * (PGlite 3.1-3.7 ms, SQLite 0.49-0.78 ms).
 *                                  1 in flight                 8 in flight                 RSS MiB
 *   bare Fastify route             5315/s  1      0.092 ms    13380/s  1      0.038 ms    102/108
 *   route, no database             2863/s  0.539  0.264 ms     2679/s  0.2    0.25 ms     103/180
 *   route, PGlite durable           184/s  0.035  3.427 ms      222/s  0.017  3.089 ms    162/199
 *   service, PGlite durable         229/s  0.043  3.209 ms      273/s  0.02   2.867 ms    166/191
 *   route, PGlite fsync off         376/s  0.071  2.214 ms      395/s  0.03   2.282 ms    199/212
 *   route, SQLite FULL              877/s  0.165  0.643 ms      678/s  0.051  0.653 ms    106/120
 *   route, SQLite group fsync       552/s  0.104  0.672 ms     1081/s  0.081  0.521 ms    105/120
 *   route, SQLite no fsync         1254/s  0.236  0.5 ms       1227/s  0.092  0.514 ms    107/122
 *   route, PostgreSQL 15            153/s  0.029  1.902 ms      259/s  0.019  1.874 ms    143/116 + server PSS 22/21
 *   service, PostgreSQL 15          177/s  0.033  2.698 ms      227/s  0.017  2.118 ms    148/122 + server PSS 30/37
 *   Node 20.20: bare                6995/s  1      0.069 ms    12376/s  1      0.039 ms    171/109
 *   Node 20.20: route, no database  3104/s  0.444  0.227 ms     2746/s  0.222  0.257 ms    131/185
 *   Node 20.20: route, PGlite       175/s  0.025  3.692 ms      204/s  0.016  3.417 ms    236/192
 *   Node 20.20: service, PGlite     219/s  0.031  3.105 ms      286/s  0.023  3.031 ms    240/186
 * No engine reaches 1/3 of the bare route, and the route without a database does not at 8 in flight either.
 * 2026-11-28, with a submission one statement and a verified token remembered (the machine at about half the
 * speed: bare 1234/s and 5425/s): the service on PGlite 133/s (0.108x, 6.6 ms) and 224/s (0.041x, 5.5 ms);
 * before the change, in the same hour, 95/s (9.4 ms) and 151/s (7.0 ms). docs/decisions.md has both runs.
 * Later that day, with each PGlite statement parsed and planned once (bare 1415/s and 7033/s): 213/s (0.151x,
 * 4.1 ms) and 476/s (0.068x, 2.8 ms); 149/s (6.4 ms) and 224/s (5.4 ms) before it, in the same hour. The "fsync
 * off" variant now runs its statements the same way, so it differs from "durable" only in the fsync.
 * 2026-11-29, the submission's statement answering only the job's number (bare 2700/s and 9461/s): the service on
 * PGlite 373/s (0.138x, 2.5 ms) and 618/s (0.065x, 2.1 ms); Node 20 394/s (0.151x) and 663/s (0.075x); SQLite
 * with the group fsync 0.273x / 0.149x; the route with no database 0.674x / 0.423x. A faster hour (bare 4411/s
 * and 21530/s): the service on PGlite 0.153x / 0.050x (1.3 / 1.2 ms), SQLite group 0.226x / 0.091x, SQLite with
 * no fsync 0.336x / 0.108x, the route with no database 0.65x / 0.50x. PGlite stays (docs/decisions.md).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Pool } from "undici";
import { postgresAvailability, startPostgres, type TestPostgres } from "../test/helpers/postgres.js";
import { type BenchReport, percentile, round, rssMiB } from "./harness.js";
import { type Engine, type Kind, SUBMIT_PATH, TOKEN } from "./store-engines-server.js";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = 5;
const MEASURE_MS = 1000;
const WARMUP_MS = 1000;
const IN_FLIGHT = [1, 8] as const;
/** RSS settles a moment after start (lazy compilation, GC). */
const SETTLE_MS = 2000;

interface Variant {
  /** Node's major version, as labels name it. */
  readonly node: string;
  readonly kind: Kind;
  readonly engine?: Engine;
}

interface Measured {
  readonly perSec: number[];
  readonly p50Ms: number[];
  cpuMs: number;
  submissions: number;
}

interface Server {
  readonly variant: Variant;
  readonly label: string;
  readonly child: ChildProcess;
  readonly url: string;
  /** Its PostgreSQL, and that server's postmaster when /proc shows it (for CPU and memory). */
  readonly postgres?: { readonly cluster: TestPostgres; readonly postmaster?: number };
  readonly measured: Record<number, Measured>;
}

const labelOf = (variant: Variant) =>
  `node${variant.node}.${variant.kind}${variant.engine ? `.${variant.engine}` : ""}`;
const median = (values: readonly number[]) => percentile(values, 50);
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

const execFileText = async (file: string, args: readonly string[]) =>
  (await promisify(execFile)(file, args, { encoding: "utf8" })).stdout.trim();

/** A Node with node:sqlite: BENCH_NODE22, this Node, or the registry's package in a temporary folder. */
async function findNode22(dir: string): Promise<{ path: string } | { reason: string }> {
  // node:sqlite came in 22.5 behind --experimental-sqlite, without the flag from 22.13 and 23.4.
  const recent = (version: string) => {
    const [major = 0, minor = 0] = version.split(".").map(Number);
    return major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
  };
  const given = process.env.BENCH_NODE22;
  if (given) {
    const version = await execFileText(given, ["-p", "process.versions.node"]);
    return recent(version) ? { path: given } : { reason: `BENCH_NODE22 is Node ${version}, not >= 22.13` };
  }
  if (recent(process.versions.node)) return { path: process.execPath };
  const prefix = join(dir, "node22");
  const name = `node-linux-${process.arch}`;
  try {
    await execFileText("npm", [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--prefix",
      prefix,
      `${name}@22`,
    ]);
    return { path: join(prefix, "node_modules", name, "bin", "node") };
  } catch (error) {
    return { reason: `no Node 22 (set BENCH_NODE22; npm install ${name}@22 failed: ${String(error)})` };
  }
}

/**
 * The variants on one Node: all of them on the first (SQLite where it has node:sqlite, PostgreSQL where one can
 * start); on this Node, when it is another, the bare route, the route without a database, and PGlite again.
 */
function variantsOn(node: string, all: boolean, withSqlite: boolean, withPostgres: boolean): Variant[] {
  const variants: Variant[] = [
    { node, kind: "bare" },
    { node, kind: "route", engine: "memory" },
    { node, kind: "route", engine: "pglite-durable" },
    { node, kind: "service", engine: "pglite-durable" },
  ];
  if (!all) return variants;
  variants.push({ node, kind: "route", engine: "pglite-nofsync" });
  if (withSqlite) {
    for (const engine of ["sqlite-full", "sqlite-group", "sqlite-nofsync"] as const)
      variants.push({ node, kind: "route", engine });
  }
  if (withPostgres) {
    variants.push({ node, kind: "route", engine: "postgres" });
    variants.push({ node, kind: "service", engine: "postgres" });
  }
  return variants;
}

/** Starts a server process and waits for the URL it prints. */
async function startServer(node: string, variant: Variant, location: string, cluster?: TestPostgres) {
  const child = spawn(
    node,
    [
      "--disable-warning=ExperimentalWarning",
      "--import",
      "tsx",
      join(here, "store-engines-server.ts"),
      variant.kind,
      variant.engine ?? "-",
      cluster?.url ?? location,
    ],
    { cwd: join(here, ".."), stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${labelOf(variant)}: no URL after 180 s: ${stderr.slice(-2000)}`));
    }, 180_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout
        .split("\n")
        .slice(0, -1)
        .find((text) => text.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${labelOf(variant)} exited (${code}) before listening: ${stderr.slice(-2000)}`));
    });
  });
  const postmaster = cluster ? await postmasterPid(new URL(cluster.url).port) : undefined;
  const server: Server = {
    variant,
    label: labelOf(variant),
    child,
    url,
    ...(cluster ? { postgres: { cluster, ...(postmaster === undefined ? {} : { postmaster }) } } : {}),
    measured: Object.fromEntries(
      IN_FLIGHT.map((inFlight) => [inFlight, { perSec: [], p50Ms: [], cpuMs: 0, submissions: 0 }]),
    ),
  };
  return server;
}

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode === null) {
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    await exited;
  }
  await server.postgres?.cluster.stop();
}

/** Submissions for `ms` with `inFlight` requests in flight; every answer must be a 202. */
async function submissions(url: string, inFlight: number, ms: number) {
  const pool = new Pool(url, { connections: inFlight });
  const latencies: number[] = [];
  let count = 0;
  const started = performance.now();
  const until = started + ms;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const at = performance.now();
        const response = await pool.request({
          method: "POST",
          path: SUBMIT_PATH,
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ description: `engines ${count}`, script: "/system identity set name=edge" }),
        });
        const body = await response.body.text();
        if (response.statusCode !== 202) throw new Error(`${url}: HTTP ${response.statusCode} ${body}`);
        latencies.push(performance.now() - at);
        count++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { count, perSec: count / seconds, p50Ms: percentile(latencies, 50) };
}

async function procStat(pid: number): Promise<string[] | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  // Fields after the command name, which may hold spaces: [0] is the state (field 3 of proc(5)).
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Pids of `pid` and every process below it. */
async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = await procStat(Number(entry));
    if (fields) parents.set(Number(entry), Number(fields[1]));
  }
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    for (const [child, parent] of parents) if (parent === tree[index]) tree.push(child);
  }
  return tree;
}

/** The postmaster listening on `port` (its command line carries `-p <port>`). */
async function postmasterPid(port: string): Promise<number | undefined> {
  for (const entry of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "")).split("\0");
    const at = argv.indexOf("-p");
    if (argv[0]?.endsWith("postgres") && at >= 0 && argv[at + 1] === port) return Number(entry);
  }
  return undefined;
}

/** The processes that do a server's work: the Node process, and PostgreSQL's when it has one. */
async function serverPids(server: Server): Promise<number[]> {
  const own = server.child.pid as number;
  const postmaster = server.postgres?.postmaster;
  return postmaster === undefined ? [own] : [own, ...(await processTree(postmaster))];
}

/** User + system CPU milliseconds the processes have used so far (USER_HZ is 100 on Linux). */
async function cpuMs(pids: readonly number[]): Promise<number> {
  let ticks = 0;
  for (const pid of pids) {
    const fields = await procStat(pid);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/** PostgreSQL's memory: the proportional set size (shared memory counted once) of the postmaster's tree. */
async function postgresPssMiB(postmaster: number): Promise<number> {
  let kb = 0;
  for (const pid of await processTree(postmaster)) {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, "utf8").catch(() => "");
    kb += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  }
  return round(kb / 1024, 0);
}

async function recordMemory(servers: readonly Server[], metrics: BenchReport["metrics"], when: string) {
  for (const server of servers) {
    metrics[`${server.label}.rss${when}MiB`] = round(
      (await rssMiB(server.child.pid as number)) ?? Number.NaN,
      0,
    );
    const postmaster = server.postgres?.postmaster;
    if (postmaster !== undefined)
      metrics[`${server.label}.postgresPss${when}MiB`] = await postgresPssMiB(postmaster);
  }
}

/**
 * Median milliseconds of an 8 kB write and its fsync in `dir`: what each durable commit waits for on this disk
 * at this moment (on a shared machine it varies with the other work more than anything else measured here).
 */
function fsyncMs(dir: string): number {
  const fd = openSync(join(dir, "fsync-probe"), "w");
  const block = Buffer.alloc(8192, 1);
  const times: number[] = [];
  try {
    for (let index = 0; index < 200; index++) {
      const at = performance.now();
      writeSync(fd, block, 0, block.length, (index % 16) * block.length);
      fsyncSync(fd);
      times.push(performance.now() - at);
    }
  } finally {
    closeSync(fd);
  }
  return round(median(times), 3);
}

/** Medians per server and in-flight count, ratios to the bare route on the same Node, and printable lines. */
function summarise(
  servers: readonly Server[],
  first: string,
  metrics: BenchReport["metrics"],
  lines: string[],
): void {
  const perSec = (label: string, inFlight: number) =>
    metrics[`${label}.inFlight${inFlight}.perSec`] as number;
  for (const server of servers) {
    for (const inFlight of IN_FLIGHT) {
      const measured = server.measured[inFlight] as Measured;
      const key = `${server.label}.inFlight${inFlight}`;
      metrics[`${key}.perSec`] = round(median(measured.perSec), 0);
      metrics[`${key}.p50Ms`] = round(median(measured.p50Ms));
      metrics[`${key}.cpuMsPerSubmission`] = round(measured.cpuMs / measured.submissions, 3);
    }
  }
  for (const server of servers) {
    for (const inFlight of IN_FLIGHT) {
      const key = `${server.label}.inFlight${inFlight}`;
      metrics[`${key}.ratio`] = round(
        perSec(server.label, inFlight) / perSec(`node${server.variant.node}.bare`, inFlight),
        3,
      );
    }
  }
  // What the real service adds around the route, in CPU per submission (throughput at 1 in flight is too noisy
  // for a difference): the service cannot run on SQLite, so its figure there is the route's plus this.
  for (const engine of ["pglite-durable", "postgres"]) {
    for (const inFlight of IN_FLIGHT) {
      const cpu = (kind: string) =>
        metrics[`node${first}.${kind}.${engine}.inFlight${inFlight}.cpuMsPerSubmission`];
      const service = cpu("service");
      const route = cpu("route");
      if (typeof service === "number" && typeof route === "number")
        metrics[`node${first}.serviceAddsCpuMs.${engine}.inFlight${inFlight}`] = round(service - route, 3);
    }
  }

  lines.push(
    `load average (1 min) ${metrics.loadAverageAtStart} at the start, ${metrics.loadAverageAtEnd} at the end; ` +
      `8 kB write + fsync ${metrics.fsyncMsAtStart} ms, ${metrics.fsyncMsAtEnd} ms (median)`,
  );
  const cell = (label: string, inFlight: number) => {
    const key = `${label}.inFlight${inFlight}`;
    return `${String(metrics[`${key}.perSec`]).padStart(6)}/s ${String(metrics[`${key}.ratio`]).padEnd(6)}x ${String(metrics[`${key}.cpuMsPerSubmission`]).padStart(6)} ms`;
  };
  lines.push(`${"".padEnd(31)}  1 in flight: /s, ratio, CPU   8 in flight              RSS MiB idle/after`);
  for (const server of servers) {
    const memory = `${metrics[`${server.label}.rssIdleMiB`]}/${metrics[`${server.label}.rssLoadedMiB`]}`;
    const postgres = server.postgres
      ? ` + PostgreSQL PSS ${metrics[`${server.label}.postgresPssIdleMiB`]}/${metrics[`${server.label}.postgresPssLoadedMiB`]}`
      : "";
    lines.push(
      `${server.label.padEnd(31)} ${cell(server.label, 1)}  ${cell(server.label, 8)}  ${memory}${postgres}`,
    );
  }
  for (const engine of ["pglite-durable", "postgres"]) {
    const adds = (inFlight: number) => metrics[`node${first}.serviceAddsCpuMs.${engine}.inFlight${inFlight}`];
    if (adds(1) === undefined) continue;
    lines.push(
      `the service adds ${adds(1)} / ${adds(8)} ms of CPU per submission to the route on ${engine} (1 / 8 in flight)`,
    );
  }
}

export async function run(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), "routerjobs-store-engines-"));
  const metrics: BenchReport["metrics"] = {};
  const lines: string[] = [];
  const servers: Server[] = [];
  try {
    metrics.loadAverageAtStart = round(loadavg()[0] ?? Number.NaN);
    metrics.fsyncMsAtStart = fsyncMs(dir);
    const node22 = await findNode22(dir);
    if (!("path" in node22)) lines.push(`SQLite skipped: ${node22.reason}`);
    const major = async (path: string) =>
      (await execFileText(path, ["-p", "process.versions.node"])).split(".")[0] as string;
    const paths =
      "path" in node22 && node22.path !== process.execPath
        ? [node22.path, process.execPath]
        : [process.execPath];
    const nodes = await Promise.all(paths.map(async (path) => ({ node: await major(path), path })));
    const first = nodes[0]?.node as string;
    // This Node may be an older 22 than node:sqlite needs: its labels then carry its whole version.
    if (nodes[1]?.node === first) nodes[1] = { node: process.versions.node, path: process.execPath };
    metrics.nodes = (
      await Promise.all(paths.map((path) => execFileText(path, ["-p", "process.version"])))
    ).join(" ");
    const postgres = postgresAvailability();
    if (!postgres.available) lines.push(`PostgreSQL skipped: ${postgres.reason}`);

    for (const { node, path } of nodes) {
      for (const variant of variantsOn(node, node === first, "path" in node22, postgres.available)) {
        const folder = join(dir, labelOf(variant));
        await mkdir(folder);
        const location = join(folder, variant.engine?.startsWith("sqlite") ? "jobs.db" : "data");
        const cluster = variant.engine === "postgres" ? await startPostgres() : undefined;
        servers.push(
          await startServer(path, variant, location, cluster).catch(async (error: unknown) => {
            await cluster?.stop();
            throw error;
          }),
        );
      }
    }
    await settle();
    await recordMemory(servers, metrics, "Idle");
    for (const server of servers) await submissions(server.url, 8, WARMUP_MS);
    for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
      // Each round starts at another variant, so that none is always measured right after the same one.
      const order = servers.map((_, index) => servers[(index + roundIndex) % servers.length] as Server);
      for (const server of order) {
        for (const inFlight of IN_FLIGHT) {
          const pids = await serverPids(server);
          const cpuBefore = await cpuMs(pids);
          const figure = await submissions(server.url, inFlight, MEASURE_MS);
          const measured = server.measured[inFlight] as Measured;
          measured.cpuMs += (await cpuMs(pids)) - cpuBefore;
          measured.submissions += figure.count;
          measured.perSec.push(figure.perSec);
          measured.p50Ms.push(figure.p50Ms);
        }
      }
    }
    await settle();
    await recordMemory(servers, metrics, "Loaded");
    metrics.loadAverageAtEnd = round(loadavg()[0] ?? Number.NaN);
    metrics.fsyncMsAtEnd = fsyncMs(dir);
    summarise(servers, first, metrics, lines);
    return {
      title: "Store engines: async submissions per second against a bare Fastify route (issue 20: >= 1/3)",
      metrics,
      lines,
    };
  } finally {
    for (const server of servers) await stopServer(server).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}
