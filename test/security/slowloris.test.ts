/**
 * Slowloris against both servers, over their real TLS: a client that drips its headers, or declares a body and
 * drips that, loses its socket at the server's deadline instead of holding it, nothing it half-sent is stored,
 * and honest clients are served while dozens of such sockets are open.
 */
import { connect, type TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { within } from "../helpers/wait-for.js";
import { ROUTER_A, startTestService, type TestService, TOKEN_A } from "../service/harness.js";
import { getJobs, newJob, notificationFor, startTestReceiver, tempDir } from "../service/receiver/helpers.js";

const TIMEOUTS = { headersTimeoutMs: 500, requestTimeoutMs: 1500 };

interface Target {
  readonly port: number;
  readonly ca: string;
}

interface SlowResult {
  readonly heldMs: number;
  readonly answer: string;
}

interface Dripping {
  /** Resolves once the socket is open and the server has the head: from then on it only drips. */
  readonly holding: Promise<void>;
  /** Resolves when the server has closed the socket. */
  readonly closed: Promise<SlowResult>;
}

/** Opens a TLS socket, sends `head`, then one byte of `drip` every 100 ms until the server closes the socket. */
function drip(target: Target, head: string, drip: string): Dripping {
  const socket: TLSSocket = connect({
    host: "127.0.0.1",
    port: target.port,
    ca: target.ca,
    servername: "localhost",
  });
  const holding = new Promise<void>((resolve, reject) => {
    socket.once("secureConnect", () => socket.write(head, () => resolve()));
    socket.once("error", reject);
  });
  const closed = holding.then(async () => {
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("error", () => {}); // a reset is one of the ways the server may end it
    const started = performance.now();
    let sent = 0;
    // The slow client's pace, not a wait in the test: it drips until the server gives up on it.
    const timer = setInterval(() => {
      if (socket.writable) socket.write(drip[sent++ % drip.length] as string);
    }, 100);
    await new Promise<void>((resolve) => socket.once("close", () => resolve()));
    clearInterval(timer);
    return { heldMs: performance.now() - started, answer };
  });
  return { holding, closed };
}

/**
 * A server without a deadline would hold a dripping socket for as long as the client drips (here: for good);
 * one with its 500 ms or 1500 ms deadline closes it long before this.
 */
const CLOSED_BY_THE_SERVER = {
  what: "the server to close a dripping socket at its deadline",
  timeoutMs: 20_000,
};

function headDrip(path: string): [string, string] {
  return [`GET ${path} HTTP/1.1\r\nHost: localhost\r\n`, "X-Slow: aaaaaaaa\r\n"];
}

function bodyDrip(path: string, headers: Record<string, string>, body: string): [string, string] {
  const lines = Object.entries({ host: "localhost", "content-type": "application/json", ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  // Declares more than it will ever send in time: the request can only end by the server's deadline.
  return [`POST ${path} HTTP/1.1\r\n${lines}content-length: ${body.length + 1000}\r\n\r\n`, body];
}

/** Holds `count` dripping sockets while `honest` runs; returns its duration and the slow clients' results. */
async function underSiege<T>(
  count: number,
  open: () => Dripping,
  honest: () => Promise<T>,
): Promise<{ result: T; honestMs: number; slow: SlowResult[] }> {
  const slow = Array.from({ length: count }, open);
  // Every slow client holds its socket before the honest one asks.
  await Promise.all(slow.map((item) => item.holding));
  const started = performance.now();
  const result = await honest();
  const honestMs = performance.now() - started;
  return {
    result,
    honestMs,
    slow: await within(Promise.all(slow.map((item) => item.closed)), CLOSED_BY_THE_SERVER),
  };
}

describe("slowloris: the service", () => {
  let svc: TestService;
  let target: Target;
  beforeAll(async () => {
    svc = await startTestService({}, undefined, { timeouts: TIMEOUTS });
    target = { port: Number(new URL(svc.url).port), ca: svc.service.ca as string };
  });
  afterAll(async () => svc?.close());

  it("cuts off dripped headers at its header deadline and answers 408", async () => {
    const result = await within(drip(target, ...headDrip("/healthz")).closed, CLOSED_BY_THE_SERVER);
    console.log(`service: dripped headers held the socket ${Math.round(result.heldMs)} ms (deadline 500 ms)`);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("cuts off a dripped job submission at its request deadline, creates no job, and serves others meanwhile", async () => {
    const before = (await svc.jobs(ROUTER_A)).length;
    const body = JSON.stringify({ description: "slowloris", script: "/system identity set name=slow" });
    const request = bodyDrip(`/api/asynchronous/${ROUTER_A}`, { authorization: `Bearer ${TOKEN_A}` }, body);
    const { result, honestMs, slow } = await underSiege(
      40,
      () => drip(target, ...request),
      () => svc.call("GET", "/healthz"),
    );
    const held = Math.max(...slow.map((item) => item.heldMs));
    console.log(
      `service: 40 dripped submissions held their sockets at most ${Math.round(held)} ms (deadline 1500 ms); /healthz meanwhile took ${Math.round(honestMs)} ms`,
    );
    expect(result.status).toBe(200);
    for (const item of slow) expect(item.answer).not.toMatch(/^HTTP\/1\.1 2/);
    expect((await svc.jobs(ROUTER_A)).length).toBe(before);
  });
});

describe("slowloris: the receiver", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let target: Target;
  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path, { timeouts: TIMEOUTS });
    target = { port: Number(new URL(receiver.url).port), ca: receiver.sender.ca };
  });
  afterAll(async () => {
    await receiver?.close();
    await dir?.remove();
  });

  it("cuts off dripped headers at its header deadline and answers 408", async () => {
    const result = await within(drip(target, ...headDrip("/healthz")).closed, CLOSED_BY_THE_SERVER);
    console.log(
      `receiver: dripped headers held the socket ${Math.round(result.heldMs)} ms (deadline 500 ms)`,
    );
    expect(result.answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("cuts off a dripped notification at its request deadline, stores nothing of it, and stores others meanwhile", async () => {
    const slowJob = newJob();
    const path = new URL(receiver.notifyUrl).pathname;
    const request = bodyDrip(path, {}, JSON.stringify(notificationFor(slowJob, "completed")));
    const honestJob = newJob();
    const { result, honestMs, slow } = await underSiege(
      40,
      () => drip(target, ...request),
      () => receiver.sender.post(notificationFor(honestJob, "completed")),
    );
    const held = Math.max(...slow.map((item) => item.heldMs));
    console.log(
      `receiver: 40 dripped notifications held their sockets at most ${Math.round(held)} ms (deadline 1500 ms); an honest one meanwhile took ${Math.round(honestMs)} ms`,
    );
    expect(result.status).toBe(200);
    for (const item of slow) expect(item.answer).not.toMatch(/^HTTP\/1\.1 2/);
    const stored = await getJobs(receiver, "limit=100");
    const ids = (stored.body.data as { job_id: string }[]).map((job) => job.job_id);
    expect(ids).toContain(honestJob.job_id);
    expect(ids).not.toContain(slowJob.job_id);
  });
});
