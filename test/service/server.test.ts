import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBackend } from "../../src/service/routers/simulated/index.js";
import { ROUTER_A, startTestService, type TestService } from "./harness.js";

/** What `inject` cannot show: routers that are slow or gone (slow clients: test/security/slowloris.test.ts). */
describe("service server: router timeouts and failures", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ syncTimeoutMs: 300 }, new SimulatedBackend({ rebootOfflineMs: 60_000 }));
  });
  afterAll(async () => svc?.close());

  it("504 router_timeout when the router does not answer in time", async () => {
    const answer = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/execute", parameters: "=script=:delay 1s" },
    });
    expect(answer.status).toBe(504);
    expect(answer.body.error.code).toBe("router_timeout");
  });

  it("502 router_unreachable while the router reboots, and its jobs wait", async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the delayed script of the previous test ends
    const reboot = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/system/reboot" },
    });
    expect(reboot.status).toBe(200);
    const answer = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/system/identity/print" },
    });
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe("router_unreachable");
    const ack = await svc.submit(ROUTER_A, { description: "waits", script: ":put 1", express_execute: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const job = (await svc.jobs(ROUTER_A)).find(
      (item) => item.idempotency_key === ack.body.data.idempotency_key,
    );
    expect(job.status).toBe("pending");
  });
});
