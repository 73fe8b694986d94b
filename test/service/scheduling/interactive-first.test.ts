/**
 * Bulk reads of a router's history go after the calls in flight (src/service/scheduling/interactive-first.ts): the
 * mechanism on its own (its bound on a clock the test moves), then in the service, on a real PGlite, with a
 * synchronous call held in flight by a body the test has not finished sending.
 */
import { PassThrough } from "node:stream";
import { Agent, request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { LIST_CHUNK } from "../../../src/service/jobs/job-page.js";
import { InteractiveFirst } from "../../../src/service/scheduling/interactive-first.js";
import { waitFor } from "../../helpers/wait-for.js";
import {
  ROUTER_A,
  ROUTER_A2,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
  writeHistory,
} from "../harness.js";

/** A statement the test starts and ends by hand: `started` says whether its turn came. */
function heldStatement() {
  let end!: () => void;
  const state = { started: false };
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const statement = async () => {
    state.started = true;
    await ended;
  };
  return { state, statement, end };
}

/** Lets the microtasks queued so far run. */
async function flush(): Promise<void> {
  for (let index = 0; index < 10; index++) await Promise.resolve();
}

describe("interactive first", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs a bulk statement at once while no call is in flight", async () => {
    const gate = new InteractiveFirst(20);
    const one = heldStatement();
    const running = gate.run(one.statement);
    await flush();
    expect(one.state.started).toBe(true);
    one.end();
    await running;
    expect(gate.deferred).toBe(0);
  });

  it("holds bulk statements while calls are in flight, then runs them one at a time in the order they came", async () => {
    const gate = new InteractiveFirst(60_000);
    const endFirst = gate.begin();
    const endSecond = gate.begin();
    const [one, two] = [heldStatement(), heldStatement()];
    const runs = [gate.run(one.statement), gate.run(two.statement)];
    expect(gate.inFlight).toBe(2);
    endFirst();
    endFirst(); // ended twice (answer sent, then the socket closed): counted once
    expect(gate.inFlight).toBe(1);
    await flush();
    expect([one.state.started, two.state.started]).toEqual([false, false]);
    endSecond();
    await flush();
    expect([one.state.started, two.state.started]).toEqual([true, false]);
    one.end();
    await flush();
    expect(two.state.started).toBe(true);
    two.end();
    await Promise.all(runs);
    expect(gate.deferred).toBe(1); // only the head of the line waits for calls; the second waited for the first
  });

  it("runs the head of the line once it has waited its bound there, though calls are still in flight", async () => {
    vi.useFakeTimers();
    const gate = new InteractiveFirst(20);
    const end = gate.begin();
    const [one, two] = [heldStatement(), heldStatement()];
    const runs = [gate.run(one.statement), gate.run(two.statement)];
    vi.advanceTimersByTime(19);
    await flush();
    expect(one.state.started).toBe(false);
    vi.advanceTimersByTime(1);
    await flush();
    expect(one.state.started).toBe(true);
    // The second's wait for the call begins when it reaches the head: as long again.
    one.end();
    await flush();
    vi.advanceTimersByTime(19);
    await flush();
    expect(two.state.started).toBe(false);
    vi.advanceTimersByTime(1);
    await flush();
    expect(two.state.started).toBe(true);
    two.end();
    await Promise.all(runs);
    expect(gate.deferred).toBe(2);
    end();
  });

  it("lets a bulk statement that fails give its turn to the next", async () => {
    const gate = new InteractiveFirst(20);
    await expect(gate.run(() => Promise.reject(new Error("the database went away")))).rejects.toThrow(
      "the database went away",
    );
    await expect(gate.run(async () => "next")).resolves.toBe("next");
  });

  it("leaves a store of several connections alone (no bound)", () => {
    const db = { query: async () => ({ rows: [] }) };
    expect(new InteractiveFirst(0).yielding(db)).toBe(db);
  });
});

describe("interactive first in the service", () => {
  let svc: TestService;
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  const JOBS = 2 * LIST_CHUNK + 50; // three chunks of the whole list

  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
    await writeHistory(svc.service.app.db, ROUTER_A, TEAM_A, JOBS);
  });
  afterAll(async () => {
    await dispatcher.close();
    await svc?.close();
  });

  it("reads a long list after a call in flight, within its bound, and counts no list as a call", async () => {
    const gate = svc.service.app.interactiveFirst;
    // A synchronous call to another router, in flight until the test sends the rest of its body.
    const body = new PassThrough();
    body.write('{"command":');
    const call = request(`${svc.url}/api/synchronous/${ROUTER_A2}`, {
      method: "POST",
      dispatcher,
      headers: { authorization: `Bearer ${TOKEN_A}`, "content-type": "application/json" },
      body,
    });
    await waitFor(() => gate.inFlight === 1, { what: "the call to be in flight" });
    const before = gate.deferred;

    const list = await svc.jobs(ROUTER_A);
    expect(list.length).toBe(JOBS);
    // Each of the list's three chunks waited for the call (then went on its bound): the call is still going.
    expect(gate.deferred - before).toBe(3);
    expect(gate.inFlight).toBe(1);

    body.end('"/system/identity/print"}');
    const answered = await call;
    expect(answered.statusCode).toBe(200);
    await answered.body.dump();
    await waitFor(() => gate.inFlight === 0, { what: "the call to end" });
    const after = gate.deferred;
    expect((await svc.jobs(ROUTER_A)).length).toBe(JOBS);
    expect(gate.deferred).toBe(after);
  });
});
