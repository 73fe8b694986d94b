/**
 * Clock skew between machines. The receiver verifies Standard Webhooks signatures against its own clock with a
 * 5-minute tolerance; the service dates its signatures by its clock. A receiver 2 minutes behind hears every
 * notification and apply confirms through it; a receiver 10 minutes behind refuses them all with a clear 401
 * and apply still confirms, through the job list. A service whose clock is an hour ahead of the machine
 * running apply confirms as fast as one whose clock is right.
 *
 * The skewed side runs as the built CLI in a child process whose wall clock is moved by
 * test/helpers/skewed-clock.mjs (loaded with NODE_OPTIONS=--import): the stand-in for a second machine's clock,
 * the one thing loopback cannot provide. A Retry-After dated by the service's clock and a certificate generated
 * on a clock that is ahead are covered too (both were bugs this test found).
 */
import { X509Certificate } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { RateLimitedError, RouterJobsClient } from "../../src/client/index.js";
import type { ApplyJob } from "../../src/contract/apply-job.js";
import { applyJob } from "../../src/deploy/apply/apply.js";
import { Journal } from "../../src/deploy/apply/journal.js";
import { generateLocalTls, TLS_FILE_NAMES, type TlsMaterial } from "../../src/platform/tls/certificates.js";
import { ReceiverClient } from "../../src/service/receiver/wait-client.js";
import { type CliProcess, startCli } from "../helpers/cli.js";
import { declareJob } from "../helpers/declared-job.js";
import { type ReceiverProcess, startReceiverProcess } from "../helpers/receiver-process.js";
import {
  clientOf,
  eventually,
  ROUTER_A,
  ROUTER_B,
  SEED,
  SIGNING_SECRET,
  startTestService,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "../service/harness.js";
import { newJob, notificationFor, Sender, tempDir } from "../service/receiver/helpers.js";

const ROOT = join(import.meta.dirname, "..", "..");
const SKEWED_CLOCK = join(ROOT, "test", "helpers", "skewed-clock.mjs");
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Whatever was started, undone in reverse order whether the test passed or not: what a test started after it,
 * what a beforeAll started after the last test.
 */
const cleanups: (() => Promise<unknown>)[] = [];
let startOfTest = 0;

async function undo(from: number): Promise<void> {
  for (const cleanup of cleanups.splice(from).reverse()) await cleanup().catch(() => {});
}

beforeEach(() => {
  startOfTest = cleanups.length;
});
afterEach(() => undo(startOfTest));
afterAll(() => undo(0));

/**
 * The built CLI in a child process (see test/helpers/cli.ts), stopped after the test; `skewMs` moves the child's
 * wall clock.
 */
function cli(args: readonly string[], env: Record<string, string> = {}, skewMs?: number): CliProcess {
  const run = startCli(args, { env: { ...env, ...skewedClock(skewMs) } });
  cleanups.push(() => run.stop());
  return run;
}

function skewedClock(skewMs: number | undefined): Record<string, string> {
  if (skewMs === undefined) return {};
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${JSON.stringify(SKEWED_CLOCK)}`.trim(),
    ROUTERJOBS_TEST_CLOCK_SKEW_MS: String(skewMs),
  };
}

/** `routerjobs receiver` with the team's signing secret, on a machine whose clock is `skewMs` off. */
async function startSkewedReceiver(skewMs: number): Promise<ReceiverProcess> {
  const dir = await tempDir();
  cleanups.push(() => dir.remove());
  const receiver = await startReceiverProcess(dir.path, {
    ROUTERJOBS_RECEIVER_SIGNING_SECRET: SIGNING_SECRET,
    ...skewedClock(skewMs),
  });
  cleanups.push(() => receiver.close());
  expect(receiver.process.output().stdout).toContain("signatures: required (Standard Webhooks)");
  return receiver;
}

function declare(
  resource: string,
  routerId: string,
  name: string,
  waitFor: ApplyJob["wait_for"],
  timeoutMs = 60_000,
): ApplyJob {
  return declareJob(routerId, resource, {
    description: `clock skew: ${name}`,
    script: `/system identity set name=${name}`,
    makeBackup: true,
    express: true,
    waitFor: waitFor,
    timeoutMs: timeoutMs,
  });
}

interface OutboxRow {
  status: string;
  attempts: number;
  last_error: string | null;
  delivered: boolean;
}

async function outboxOf(service: TestService, jobId: string): Promise<OutboxRow[]> {
  const { rows } = await service.service.app.db.query<OutboxRow>(
    `SELECT payload->>'status' AS status, attempts, last_error, delivered_at IS NOT NULL AS delivered
     FROM outbox WHERE job_id = $1 ORDER BY seq`,
    [jobId],
  );
  return rows;
}

/** The service in this process, for team B (whose seed has a signing secret), trusting the receiver's CA. */
async function signingService(receiver: ReceiverProcess, stateDir: string) {
  const service = await startTestService({
    notifyCa: receiver.ca,
    notifyRetryBaseMs: 100,
    notifyRetryMaxMs: 500,
  });
  cleanups.push(() => service.close());
  const client = clientOf(service, stateDir, TOKEN_B);
  cleanups.push(() => client.close());
  const waiter = new ReceiverClient({
    url: receiver.url,
    readerToken: receiver.readerToken,
    ca: receiver.ca,
    retryDelayMs: 200,
  });
  cleanups.push(() => waiter.close());
  return { service, client, waiter };
}

describe("the receiver's clock behind the service's", () => {
  let stateDir: string;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "rj-skew-"));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
  });

  it("by 2 minutes (within the 5-minute tolerance): every notification arrives and apply confirms through the receiver", {
    timeout: 120_000,
  }, async () => {
    // GIVEN a receiver whose clock is 2 minutes behind, verifying the team's signatures, and a service that
    // signs with that team's secret and trusts the receiver's generated CA
    const receiver = await startSkewedReceiver(-2 * MINUTE);
    const { service, client, waiter } = await signingService(receiver, stateDir);
    const job = declare("faults/skew-2m", ROUTER_B, "skew-2m", "receiver");
    const lines: string[] = [];

    // WHEN apply submits an express job and waits through the receiver
    const started = performance.now();
    const result = await applyJob(job, {
      client,
      journal: new Journal(stateDir),
      instanceId: "skew-2m",
      receiver: waiter,
      notifyUrl: receiver.notifyUrl,
      write: (line) => lines.push(line),
    });
    const seconds = (performance.now() - started) / 1000;

    // THEN the receiver told apply of the terminal state; the job list was never needed
    expect(result.outcome).toBe("completed");
    expect(result.job?.status).toBe("completed");
    expect(lines.some((line) => / completed \(notified\)/.test(line))).toBe(true);
    expect(lines.some((line) => line.includes("asking the job list"))).toBe(false);
    // AND the receiver stored every state, each once, and the service had every one accepted at the first try
    const key = (await new Journal(stateDir).read(job.job_key))?.attempts[0]?.idempotencyKey as string;
    const heard = await waiter.getJob(key);
    expect(heard?.heard).toEqual(["loaded", "running", "completed"]);
    const outbox = await eventually(async () => {
      const rows = await outboxOf(service, result.job?.id as string);
      return rows.length === 3 && rows.every((row) => row.delivered) ? rows : undefined;
    });
    expect(outbox.map((row) => [row.status, row.attempts, row.last_error])).toEqual([
      ["loaded", 1, null],
      ["running", 1, null],
      ["completed", 1, null],
    ]);
    // AND the receiver's clock really was 2 minutes behind (it dates what it stores by its own clock)
    const behindMs = Date.now() - Date.parse(heard?.last_heard_at as string);
    expect(behindMs).toBeGreaterThan(1.5 * MINUTE);
    expect(behindMs).toBeLessThan(3 * MINUTE);
    console.log(
      `receiver clock ${(behindMs / 1000).toFixed(0)} s behind: apply confirmed through the receiver in ${seconds.toFixed(1)} s; it heard ${heard?.heard?.join(", ")}, each accepted at the first delivery`,
    );
  });

  it("by 10 minutes (outside the tolerance): every notification is refused with a clear 401, nothing is stored, apply confirms through the job list", {
    timeout: 120_000,
  }, async () => {
    // GIVEN a receiver whose clock is 10 minutes behind, and the same signing service
    const receiver = await startSkewedReceiver(-10 * MINUTE);
    const { service, client, waiter } = await signingService(receiver, stateDir);
    const job = declare("faults/skew-10m", ROUTER_B, "skew-10m", "receiver");
    const lines: string[] = [];

    // WHEN apply waits through the receiver, with a short quiet time
    const started = performance.now();
    const result = await applyJob(job, {
      client,
      journal: new Journal(stateDir),
      instanceId: "skew-10m",
      receiver: waiter,
      notifyUrl: receiver.notifyUrl,
      receiverQuietMs: 1500,
      write: (line) => lines.push(line),
    });
    const seconds = (performance.now() - started) / 1000;

    // THEN it confirmed through the job list once the receiver stayed silent
    expect(result.outcome).toBe("completed");
    expect(lines.some((line) => line.includes("asking the job list"))).toBe(true);
    expect(lines.some((line) => line.includes("(notified)"))).toBe(false);
    // AND the service's deliveries are refused, again and again, with 401; none is delivered
    const outbox = await eventually(async () => {
      const rows = await outboxOf(service, result.job?.id as string);
      return rows[0] && rows[0].attempts >= 3 ? rows : undefined;
    }, 120_000);
    expect(outbox.some((row) => row.delivered)).toBe(false);
    expect(outbox[0]).toMatchObject({ status: "loaded", last_error: "HTTP 401" });
    // AND the reason is clear to whoever reads the answer: a notification signed now, by the service's clock
    const sender = new Sender(receiver.notifyUrl, receiver.ca);
    cleanups.push(() => sender.close());
    const probe = notificationFor(newJob(ROUTER_B), "loaded");
    const signedNow = sender.signed(probe, Math.floor(Date.now() / 1000), SIGNING_SECRET);
    const refused = await sender.post(signedNow.body, { headers: signedNow.headers });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({
      code: "unauthenticated",
      message: "webhook-timestamp is more than 5 minutes in the future",
    });
    // AND the receiver stored nothing: neither the job nor the probe
    const key = (await new Journal(stateDir).read(job.job_key))?.attempts[0]?.idempotencyKey as string;
    expect(await waiter.getJob(key)).toBeUndefined();
    expect(await waiter.recentJobs()).toEqual([]);
    // AND it is the clock, not the secret: the same notification dated by the receiver's clock is accepted
    const signedThen = sender.signed(probe, Math.floor((Date.now() - 10 * MINUTE) / 1000), SIGNING_SECRET);
    expect((await sender.post(signedThen.body, { headers: signedThen.headers })).status).toBe(200);
    console.log(
      `receiver clock 10 min behind: apply confirmed by the job list in ${seconds.toFixed(1)} s (1.5 s quiet time); the service's first notification was refused ${outbox[0]?.attempts} times (${outbox[0]?.last_error}, "${refused.body.error?.message}"), 0 stored`,
    );
  });
});

/**
 * The service on a machine whose clock is an hour ahead of the one running apply: the built CLI in a child
 * process for each. The service presents a certificate that a CA with a correct clock issued (an operator's
 * certificate); the one it would generate itself is the subject of the last test.
 */
describe("the service's clock an hour ahead of apply's", () => {
  const SKEW_MS = HOUR;
  let dir: string;
  let tls: TlsMaterial;
  let caFile: string;
  let serviceUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-skew-service-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    tls = await generateLocalTls();
    caFile = join(dir, "ca.pem");
    await writeFile(caFile, tls.ca);
    await writeFile(join(dir, "cert.pem"), tls.cert);
    await writeFile(join(dir, "key.pem"), tls.key, { mode: 0o600 });
    await writeFile(join(dir, "seed.json"), JSON.stringify(SEED), { mode: 0o600 });
    const run = cli(
      [
        "service",
        "--listen",
        "127.0.0.1:0",
        "--data",
        join(dir, "service"),
        "--database",
        "memory://",
        "--seed",
        join(dir, "seed.json"),
        "--tls-cert",
        join(dir, "cert.pem"),
        "--tls-key",
        join(dir, "key.pem"),
        "--tick",
        "250ms",
        // The spec's 60 requests, in a 30 s window: a 429's Retry-After then asks for seconds, not a minute,
        // and still tells apart reading it by the service's clock (seconds) from reading it by ours (an hour).
        // (With 10 s, a loaded machine started apply after the spent window had begun to free, and apply met
        // no 429 to read.)
        "--rate-limit",
        "60/30s",
      ],
      {},
      SKEW_MS,
    );
    serviceUrl = await run.printed(/^routerjobs service listening on (\S+)/m, "the service");
  });

  /** `routerjobs apply` as a Terraform provisioner runs it, on this machine (its clock is right). */
  async function cliApply(job: ApplyJob, url: string, stateDir: string) {
    const started = performance.now();
    const run = cli(["apply"], {
      ROUTERJOBS_URL: url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: caFile,
      ROUTERJOBS_STATE_DIR: stateDir,
      ROUTERJOBS_JOB: JSON.stringify(job),
    });
    const code = await run.exited;
    const { stdout, stderr } = run.output();
    expect(`${stdout}${stderr}`).not.toContain(TOKEN_A.split(":")[2] as string);
    return { code, stdout, stderr, seconds: (performance.now() - started) / 1000 };
  }

  it("an hour ahead: apply confirms as fast as without skew", { timeout: 120_000 }, async () => {
    // GIVEN the service an hour ahead (its job list dates everything by its clock)
    const stateDir = await mkdtemp(join(dir, "apply-"));
    const job = declare("faults/skew-service", ROUTER_A, "skew-service", "poll");

    // WHEN routerjobs apply submits the job and polls the job list
    const applied = await cliApply(job, serviceUrl, stateDir);

    // THEN it confirmed within its 60 s timeout (a wait on the service's dates would have run into it)
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("routerjobs: faults/skew-service: completed");
    // AND the service's clock really was an hour ahead
    const key = (await new Journal(stateDir).read(job.job_key))?.attempts[0]?.idempotencyKey as string;
    const client = new RouterJobsClient({
      baseUrl: serviceUrl,
      token: TOKEN_A,
      ca: tls.ca,
      budgetDir: stateDir,
    });
    const listed = (await client.listJobs(ROUTER_A).finally(() => client.close())).find(
      (item) => item.idempotency_key === key,
    );
    expect(listed?.status).toBe("completed");
    const aheadMs = Date.parse(listed?.completed_at as string) - Date.now();
    expect(aheadMs).toBeGreaterThan(55 * MINUTE);
    expect(aheadMs).toBeLessThan(65 * MINUTE);
    console.log(
      `service clock ${(aheadMs / MINUTE).toFixed(1)} min ahead: routerjobs apply (poll) confirmed in ${applied.seconds.toFixed(1)} s`,
    );
  });

  /**
   * A Retry-After given as an HTTP date is read against the response's own `Date` header (both from the service's
   * clock), not against ours: read against ours, a server an hour ahead would say "retry in an hour", and the
   * shared rate budget would stop every process using the key for that hour.
   *
   * Our service sends Retry-After in seconds, so a gateway in front of it, on the service's machine (its
   * clock), answers the service's 429s with an HTTP date, as RFC 9110 allows any server to.
   */
  it("a 429 whose Retry-After is an HTTP date from the service's clock: apply waits what was asked, not an hour", {
    timeout: 240_000,
  }, async () => {
    // GIVEN a gateway that dates Retry-After (and Date) by the service machine's clock
    const gateway = await DatingGateway.start(serviceUrl, tls, SKEW_MS);
    cleanups.push(() => gateway.close());
    // AND another machine that has just spent the key's whole window (its budget file is its own)
    const elsewhere = await mkdtemp(join(dir, "elsewhere-"));
    const theirs = new RouterJobsClient({
      baseUrl: serviceUrl,
      token: TOKEN_A,
      ca: tls.ca,
      budgetDir: elsewhere,
      rateLimit: { count: 100_000, windowMs: 1000 },
      retry: { maxAttempts: 1 },
    });
    let spent = 0;
    try {
      for (let limited = false; !limited && spent < 200; spent++) {
        limited = await theirs.listJobs(ROUTER_A).then(
          () => false,
          (error: unknown) => error instanceof RateLimitedError,
        );
      }
    } finally {
      await theirs.close();
    }
    const stateDir = await mkdtemp(join(dir, "apply-"));
    const job = declare("faults/skew-retry-after", ROUTER_A, "skew-retry-after", "poll", 180_000);

    // WHEN routerjobs apply goes through the gateway
    const applied = await cliApply(job, gateway.url, stateDir);

    // THEN (figures first)
    const budgets = (await readdir(stateDir)).filter((name) => name.startsWith("rate-budget-"));
    const blockedMs = await Promise.all(
      budgets.map(async (name) => {
        const state = JSON.parse(await readFile(join(stateDir, name), "utf8")) as { blockedUntil?: number };
        return (state.blockedUntil ?? 0) - Date.now();
      }),
    );
    const lastLine = (applied.stderr.trim().split("\n").at(-1) ?? "").replaceAll(stateDir, "<state dir>");
    console.log(
      `Retry-After as an HTTP date from a clock 1 h ahead: the other machine sent ${spent} requests until one was answered 429; the gateway dated ${gateway.dated.length} 429s (asked ${gateway.dated.join(", ")} s); apply exited ${applied.code} after ${applied.seconds.toFixed(1)} s; the shared budget is blocked for ${(Math.max(0, ...blockedMs) / MINUTE).toFixed(1)} more min${lastLine ? `; "${lastLine}"` : ""}`,
    );
    // THEN apply waited what the service asked (at most its 30 s window), and confirmed within its timeout:
    // the shared budget holds the key for less than the window, not for the hour our clock would read
    expect(gateway.dated.length).toBeGreaterThan(0);
    expect(applied.code).toBe(0);
    expect(Math.max(0, ...blockedMs)).toBeLessThan(2 * MINUTE);
  });

  /**
   * A certificate generated on a machine whose clock is ahead must still be valid elsewhere: generated
   * certificates are backdated by a day, as public CAs backdate theirs.
   */
  it("an hour ahead with a certificate it generated itself (--tls-generate): clients can connect", {
    timeout: 120_000,
  }, async () => {
    // GIVEN a service an hour ahead that generated its own CA and certificate
    const data = await mkdtemp(join(dir, "generated-"));
    const run = cli(
      [
        "service",
        "--listen",
        "127.0.0.1:0",
        "--data",
        data,
        "--database",
        "memory://",
        "--seed",
        join(dir, "seed.json"),
        "--tls-generate",
      ],
      {},
      SKEW_MS,
    );
    const url = await run.printed(/^routerjobs service listening on (\S+)/m, "the service");
    const generatedCa = join(data, TLS_FILE_NAMES.ca);
    const validFrom = Date.parse(
      new X509Certificate(await readFile(join(data, TLS_FILE_NAMES.cert))).validFrom,
    );

    // WHEN a client on this machine lists a router's jobs, trusting that CA
    const listed = cli(["jobs", ROUTER_A, "--json"], {
      ROUTERJOBS_URL: url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: generatedCa,
      ROUTERJOBS_STATE_DIR: data,
    });
    const code = await listed.exited;
    const lastLine = listed.output().stderr.trim().split("\n").at(-1) ?? "";
    console.log(
      `generated certificate on a clock 1 h ahead: valid from ${((validFrom - Date.now()) / MINUTE).toFixed(1)} min from now; routerjobs jobs exited ${code}${lastLine ? `: "${lastLine}"` : ""}`,
    );

    // THEN it connects
    expect(code).toBe(0);
  });
});

/**
 * A TLS-terminating gateway in front of the service, on the service's machine: it forwards every request and
 * rewrites a 429's `Retry-After: <seconds>` into the HTTP date it means by that machine's clock (and dates the
 * response by it, as any server's `Date` header is).
 */
class DatingGateway {
  /** The Retry-After seconds of each 429 the gateway dated. */
  readonly dated: number[] = [];

  private constructor(
    private readonly server: Server,
    private readonly upstream: Agent,
  ) {}

  static async start(target: string, tls: TlsMaterial, skewMs: number): Promise<DatingGateway> {
    const upstream = new Agent({ connect: { ca: tls.ca } });
    const server = createServer({ cert: tls.cert, key: tls.key });
    const gateway = new DatingGateway(server, upstream);
    server.on("request", async (incoming, outgoing) => {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of incoming) chunks.push(chunk as Buffer);
        const headers = Object.fromEntries(
          Object.entries(incoming.headers).filter(
            ([name]) => !["host", "connection", "keep-alive", "content-length"].includes(name),
          ),
        ) as Record<string, string>;
        const body = Buffer.concat(chunks);
        const answer = await request(`${target}${incoming.url}`, {
          method: incoming.method as "GET",
          headers,
          dispatcher: upstream,
          ...(body.length > 0 ? { body } : {}),
        });
        const text = Buffer.from(await answer.body.arrayBuffer());
        const now = Date.now() + skewMs;
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value === undefined || ["connection", "keep-alive", "transfer-encoding"].includes(name))
            continue;
          out[name] = value;
        }
        out.date = new Date(now).toUTCString();
        const retryAfter = answer.headers["retry-after"];
        if (answer.statusCode === 429 && typeof retryAfter === "string" && /^\d+$/.test(retryAfter)) {
          gateway.dated.push(Number(retryAfter));
          out["retry-after"] = new Date(now + Number(retryAfter) * 1000).toUTCString();
        }
        out["content-length"] = String(text.length);
        outgoing.writeHead(answer.statusCode, out);
        outgoing.end(text);
      } catch {
        outgoing.writeHead(502).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return gateway;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.upstream.close();
  }
}
