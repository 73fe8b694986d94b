import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  eventually,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  type TestService,
  TOKEN_B,
} from "./harness.js";

// Issue 21, item 1: one team's script must neither freeze the service nor exhaust its memory.
describe("a runaway script", () => {
  let svc: TestService;
  beforeAll(async () => {
    // The tests poll job lists while scripts run: more requests than the spec's 60 a minute.
    svc = await startTestService({ tickMs: 50, rateLimit: { count: 10_000, windowMs: 1000 } });
  });
  afterAll(async () => svc?.close());

  const finished = (routerId: string, key: string) =>
    eventually(async () => {
      const job = (await svc.jobs(routerId)).find((item) => item.idempotency_key === key);
      return job && (job.status === "completed" || job.status === "failed") ? job : undefined;
    }, 120_000);

  it("that doubles an array fails with not enough memory, and the router takes its next job", async () => {
    const doubling = ":local a {1;2}; :for i from=1 to=25 do={ :set a {$a;$a} }; :put [:len [:tostr $a]]";
    const runaway = (await svc.submit(ROUTER_A, { description: "doubling", script: doubling })).body.data;
    const next = (
      await svc.submit(ROUTER_A, { description: "next", script: "/system identity set name=after" })
    ).body.data;
    const failed = await finished(ROUTER_A, runaway.idempotency_key);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^not enough memory: script values would exceed \d+ bytes.*line 1/);
    expect((await finished(ROUTER_A, next.idempotency_key)).status).toBe("completed");
  });

  it("that loops without end leaves every other caller answered while it runs", async () => {
    const endless = ":local n 0; :while (true) do={ :set n ($n + 1) }";
    const loop = (
      await svc.submit(ROUTER_A2, { description: "endless", script: endless, express_execute: true })
    ).body.data;
    await eventually(async () => {
      const job = (await svc.jobs(ROUTER_A2)).find((item) => item.idempotency_key === loop.idempotency_key);
      return job?.status === "running" ? job : undefined;
    });
    // While the loop runs, the health check and another team's synchronous call are answered...
    const health = await svc.call("GET", "/healthz", { token: null });
    const other = await svc.call("POST", `/api/synchronous/${ROUTER_B}`, {
      token: TOKEN_B,
      body: { command: "/system/identity/print" },
    });
    expect(health.status).toBe(200);
    expect(other.status).toBe(200);
    // ...and the loop was still running when they were: the answers did not wait for it to end.
    const during = (await svc.jobs(ROUTER_A2)).find((item) => item.idempotency_key === loop.idempotency_key);
    expect(during.status).toBe("running");
    const failed = await finished(ROUTER_A2, loop.idempotency_key);
    expect(failed.error).toMatch(/statement/);
  });

  // Issue 45, finding 1: JavaScript's RegExp took 44 s for this pattern against 40 characters, and the time
  // doubled with each more; the whole service waited, out of reach of the sync timeout.
  it("whose regular expression backtracks in JavaScript answers its synchronous call, and the service serves meanwhile", async () => {
    const script = `:put ("${"a".repeat(60)}>" ~ "(a+)+b")`;
    const call = svc.call("POST", `/api/synchronous/${ROUTER_B}`, {
      token: TOKEN_B,
      body: { command: "/execute", parameters: `=script=${script}` },
    });
    const health = await svc.call("GET", "/healthz", { token: null });
    const answer = await call;
    expect(health.status).toBe(200);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual([{ ret: "false" }]);
  });
});
