import { spawn } from "node:child_process";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { maxInAnyWindow } from "../../bench/harness.js";
import { defaultStateDir, RateBudget, TimeoutError } from "../../src/client/index.js";
import { type ManualClock, manualClock } from "../helpers/manual-clock.js";
import { tempBudgetDir } from "./helpers/make-client.js";
import { ROUTER_ID, type StandIn, startStandIn, TOKEN } from "./helpers/stand-in-service.js";

// The budget runs on a simulated clock that its own waits move: a window passes as soon as the budget waits it out.
let clock: ManualClock;
beforeEach(() => {
  clock = manualClock();
});
const budget = (count: number, windowMs: number, dir = tempBudgetDir()) =>
  new RateBudget({
    dir,
    key: "k",
    rateLimit: { count, windowMs },
    headroomMs: 20,
    clock: { now: clock.nowMs, sleep: clock.sleep },
  });
const soon = (ms: number) => clock.nowMs() + ms;

describe("rate budget in one process", () => {
  it("grants N at once, then the next only a window after the oldest answer", async () => {
    const b = budget(5, 400);
    const permits = await Promise.all(Array.from({ length: 5 }, () => b.acquire(soon(100))));
    const answered = clock.nowMs();
    await Promise.all(permits.map((permit) => permit.release({ counted: true })));
    await (await b.acquire(soon(2000))).release({ counted: true });
    // The sixth grant came only once the budget's clock had passed the window after the answers.
    expect(clock.nowMs() - answered).toBeGreaterThanOrEqual(400);
  });

  it("counts a grant from its answer, not its start, so slow requests never undercount the window", async () => {
    const b = budget(1, 300);
    const permit = await b.acquire(soon(100));
    clock.advance(250); // the request is in flight
    const answered = clock.nowMs();
    await permit.release({ counted: true });
    await b.acquire(soon(2000));
    // A window from the answer, not from the grant (which would free the slot 250 ms sooner).
    expect(clock.nowMs() - answered).toBeGreaterThanOrEqual(300);
  });

  it("gives back the slot of a request the service did not count (a 429)", async () => {
    const b = budget(1, 60_000);
    await (await b.acquire(soon(100))).release({ counted: false });
    await expect(b.acquire(soon(100))).resolves.toBeDefined();
  });

  it("fails with a TimeoutError naming the budget when no slot frees before the deadline", async () => {
    const b = budget(2, 60_000);
    await (await b.acquire(soon(100))).release({ counted: true });
    await (await b.acquire(soon(100))).release({ counted: true });
    const error = await b.acquire(soon(200)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe("budget");
    expect((error as TimeoutError).message).toMatch(
      /rate budget of 2\/1m for this API key .* frees a slot only in \d+ ms/,
    );
  });

  it("makes everyone wait until blockedUntil", async () => {
    const dir = tempBudgetDir();
    const until = soon(300);
    await budget(10, 1000, dir).block(until);
    await budget(10, 1000, dir).acquire(soon(2000));
    expect(clock.nowMs()).toBeGreaterThanOrEqual(until);
  });

  it("closes the open grant of a process that died mid-request", async () => {
    const dir = tempBudgetDir();
    const b = budget(1, 200, dir);
    const deadPid = await exitedPid();
    await writeFile(
      b.file,
      JSON.stringify({ blockedUntil: 0, grants: [{ id: "x", t: clock.nowMs(), pid: deadPid, open: true }] }),
    );
    await expect(b.acquire(soon(1000))).resolves.toBeDefined();
  });

  it("takes over a stale lock left by a crashed holder, and waits on a live one", async () => {
    const b = budget(5, 1000);
    await mkdir(join(b.file, ".."), { recursive: true });
    await mkdir(`${b.file}.lock`);
    await expect(b.acquire(soon(300))).rejects.toMatchObject({ phase: "budget" });
    const old = new Date(Date.now() - 60_000);
    await utimes(`${b.file}.lock`, old, old);
    await expect(b.acquire(soon(1000))).resolves.toBeDefined();
  });

  it("resets an unreadable state file with a warning", async () => {
    const warnings: string[] = [];
    const dir = tempBudgetDir();
    const b = new RateBudget({
      dir,
      key: "k",
      rateLimit: { count: 1, windowMs: 1000 },
      onWarning: (m) => warnings.push(m),
    });
    await writeFile(b.file, "{torn");
    await expect(b.acquire(soon(100))).resolves.toBeDefined();
    expect(warnings).toEqual([`rate budget file ${b.file} was unreadable and has been reset`]);
  });
});

describe("state directory", () => {
  it("prefers ROUTERJOBS_STATE_DIR, then XDG_STATE_HOME, then ~/.local/state", () => {
    expect(defaultStateDir({ ROUTERJOBS_STATE_DIR: "/a", XDG_STATE_HOME: "/b" })).toBe("/a");
    expect(defaultStateDir({ XDG_STATE_HOME: "/b" })).toBe("/b/routerjobs");
    expect(defaultStateDir({})).toMatch(/\/\.local\/state\/routerjobs$/);
  });
});

describe("rate budget across processes", () => {
  const COUNT = 15;
  const WINDOW_MS = 1000;
  /** 40 requests in all: more than two windows hold, so the four processes must pace each other. */
  const REQUESTS_EACH = 10;
  let service: StandIn;

  beforeAll(async () => {
    service = await startStandIn({ rateLimit: { count: COUNT, windowMs: WINDOW_MS } });
  });
  afterAll(async () => {
    await service.close();
  });

  it("keeps four real processes sharing one key within N per window, without a single 429", async () => {
    const dir = tempBudgetDir();
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        runWorker({
          RJ_URL: service.url,
          RJ_BUDGET_DIR: dir,
          RJ_RATE: `${COUNT}/1s`,
          RJ_REQUESTS: String(REQUESTS_EACH),
        }),
      ),
    );
    expect(results.flatMap((result) => result.failures)).toEqual([]);
    expect(results.map((result) => result.rateLimited)).toEqual([0, 0, 0, 0]);
    expect(service.counts.rateLimited).toBe(0);
    const arrivals = service.requests.map((request) => request.at).sort((a, b) => a - b);
    expect(maxInAnyWindow(arrivals, WINDOW_MS)).toBeLessThanOrEqual(COUNT);
    // Every request was answered, none was given up on while it waited for budget
    expect(results.map((result) => result.ok)).toEqual(Array(4).fill(REQUESTS_EACH));
    expect(arrivals.length).toBe(4 * REQUESTS_EACH);
  });
});

async function runWorker(
  env: Record<string, string>,
): Promise<{ ok: number; rateLimited: number; failures: string[] }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/client/helpers/budget-worker.ts"], {
    env: { ...process.env, ...env, ROUTERJOBS_TOKEN: TOKEN, RJ_ROUTER: ROUTER_ID },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise((resolve) => child.on("close", resolve));
  expect(code).toBe(0);
  return JSON.parse(out.trim().split("\n").at(-1) ?? "");
}

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"]);
  await new Promise((resolve) => child.on("close", resolve));
  return child.pid as number;
}
