import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DestinationGate, destinationOf } from "../../../src/service/notifications/destination-gate.js";
import { blackHole } from "../../helpers/black-hole.js";
import { HttpsSink } from "../../helpers/https-sink.js";
import { ROUTER_A, ROUTER_B, startTestService, type TestService, TOKEN_B } from "../harness.js";

describe("the destination gate", () => {
  it("names a destination by scheme, host and port as written", () => {
    expect(destinationOf("https://hooks.example:8443/a/b?c#d")).toBe("https://hooks.example:8443");
    expect(destinationOf("https://hooks.example")).toBe("https://hooks.example");
  });

  it("lets a destination take at most perDestination deliveries at once", () => {
    const gate = new DestinationGate({ perDestination: 2 });
    gate.start("https://a");
    gate.start("https://a");
    expect(gate.room("https://a")).toBe(0);
    expect(gate.known()).toEqual(["https://a"]);
    expect(gate.room("https://b")).toBe(2);
    gate.finish("https://a", "delivered");
    expect(gate.room("https://a")).toBe(1);
  });

  it("opens the circuit after timeouts in a row, tries once when it half-opens, doubles the wait on failure", () => {
    let now = 0;
    const gate = new DestinationGate({ failuresToOpen: 3, openMs: 1000, maxOpenMs: 3000, now: () => now });
    for (let i = 0; i < 3; i++) {
      gate.start("https://x");
      gate.finish("https://x", "timed-out");
    }
    expect(gate.room("https://x")).toBe(0);
    expect(gate.healthy("https://x")).toBe(false);
    now = 1000;
    expect(gate.room("https://x")).toBe(1);
    gate.start("https://x");
    expect(gate.room("https://x")).toBe(0);
    gate.finish("https://x", "timed-out");
    now = 2999;
    expect(gate.room("https://x")).toBe(0);
    now = 3000;
    expect(gate.room("https://x")).toBe(1);
    gate.start("https://x");
    gate.finish("https://x", "timed-out");
    now = 5999; // doubled again, but capped at maxOpenMs
    expect(gate.room("https://x")).toBe(0);
    now = 6000;
    gate.start("https://x");
    gate.finish("https://x", "delivered");
    expect(gate.room("https://x")).toBe(4);
    expect(gate.healthy("https://x")).toBe(true);
    expect(gate.known()).toEqual([]);
  });

  it("never opens for failures that come at once (a receiver that is down): they flow again when it is back", () => {
    const gate = new DestinationGate({ failuresToOpen: 2 });
    for (let i = 0; i < 10; i++) {
      gate.start("https://down");
      gate.finish("https://down", "failed");
    }
    expect(gate.room("https://down")).toBe(4);
  });
});

describe("one team's black-hole notify_url (issue 21, item 6)", () => {
  let sink: HttpsSink;
  let hole: Awaited<ReturnType<typeof blackHole>>;
  let svc: TestService;
  beforeAll(async () => {
    sink = await HttpsSink.start();
    hole = await blackHole();
    svc = await startTestService({
      notifyCa: sink.ca,
      // Longer than the test can take on any machine: every attempt the black hole got is still held when the
      // test looks. At 5 s, a loaded machine (two suites at once, scripts/flake.mjs) let some time out before
      // team B's arrived, and the black hole had taken 7 connections, the first ones' closes not yet seen.
      notifyTimeoutMs: 600_000,
      notifyRetryBaseMs: 50,
      rateLimit: { count: 10_000, windowMs: 1000 },
    });
  });
  afterAll(async () => {
    // The black hole first: its attempts then fail at once, and the service's close does not wait them out.
    await new Promise((resolve) => hole?.server.close(resolve));
    await svc?.close();
    await sink?.close();
  });

  it("does not hold another team's notification behind its own: a few slots, never all of them", async () => {
    // GIVEN team A's jobs whose notifications go to a receiver that never answers, more than all slots
    for (let i = 0; i < 24; i++) {
      await svc.submit(ROUTER_A, {
        description: `to the black hole ${i}`,
        script: ":put 1",
        express_execute: true,
        notify_url: `https://127.0.0.1:${hole.port}/hook`,
      });
    }
    // WHEN team B's job notifies its own receiver
    const ack = (
      await svc.submit(
        ROUTER_B,
        { description: "elsewhere", script: ":put 1", express_execute: true, notify_url: `${sink.url}/hook` },
        TOKEN_B,
      )
    ).body.data;
    await sink.waitFor((received) =>
      received.some((item) => item.body.idempotency_key === ack.idempotency_key),
    );
    // THEN it arrived while the black hole still held every attempt it got (none had timed out yet), and the
    // black hole got no more than its share of the slots
    expect(hole.ended()).toBe(0);
    expect(hole.accepted()).toBeGreaterThan(0);
    expect(hole.accepted()).toBeLessThanOrEqual(4);
  });
});
