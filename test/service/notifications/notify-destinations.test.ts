/**
 * Issue 21, item 8: a team's notify_url must not make the service call into its own network (SSRF). Loopback,
 * private, link-local and metadata addresses are refused by default, in every spelling, checked on the address
 * the connection goes to; an operator's allow-list opens exactly what it names.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../../src/errors.js";
import {
  literalAddress,
  NotifyDestinationError,
  notifyDestinations,
  parseAllowList,
} from "../../../src/service/notifications/notify-destinations.js";
import { HttpsSink } from "../../helpers/https-sink.js";
import { eventually, ROUTER_A, startTestService, type TestService } from "../harness.js";

const refused = (address: string, allow: string[] = []) => {
  try {
    notifyDestinations(allow).check(address);
    return undefined;
  } catch (error) {
    if (error instanceof NotifyDestinationError) return error.message;
    throw error;
  }
};

describe("notify destinations", () => {
  it("refuses loopback, private, link-local and metadata addresses, IPv4-mapped ones too, and names the range", () => {
    expect(refused("127.0.0.1")).toMatch(/127\.0\.0\.1, a loopback address/);
    expect(refused("169.254.169.254")).toMatch(/link-local \(cloud metadata\)/);
    for (const address of [
      "0.0.0.0",
      "10.1.2.3",
      "172.31.255.255",
      "192.168.88.1",
      "100.64.0.1",
      "::1",
      "::",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:a00:1",
    ]) {
      expect(refused(address), address).toBeDefined();
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2001:4860:4860::8888"]) {
      expect(refused(address), address).toBeUndefined();
    }
  });

  it("finds the literal address in every spelling a URL allows", () => {
    for (const url of [
      "https://127.1/hook",
      "https://2130706433/hook",
      "https://0x7f000001/hook",
      "https://0177.0.0.1/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::1]:8443/hook",
    ]) {
      const literal = literalAddress(url);
      expect(literal, url).toBeDefined();
      expect(refused(literal as string), url).toBeDefined();
    }
    expect(literalAddress("https://receiver.example.com/hook")).toBeUndefined();
  });

  it("refuses every address of a refused range, whatever its last bits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), (a, b) => {
        expect(refused(`10.${a}.${b}.7`)).toBeDefined();
        expect(refused(`192.168.${a}.${b}`)).toBeDefined();
        expect(refused(`127.${a}.${b}.1`)).toBeDefined();
      }),
    );
  });

  it("opens exactly what the allow-list names", () => {
    expect(refused("10.20.3.4", ["10.20.0.0/16"])).toBeUndefined();
    expect(refused("10.21.3.4", ["10.20.0.0/16"])).toBeDefined();
    expect(refused("127.0.0.1", ["127.0.0.1"])).toBeUndefined();
    expect(refused("::ffff:127.0.0.1", ["127.0.0.1"])).toBeUndefined();
    for (const bad of ["10.0.0.0/33", "example.com", "::1/129", ""]) {
      expect(() => parseAllowList([bad]), bad).toThrow(UsageError);
      expect(() => parseAllowList([bad]), bad).toThrow(/--notify-allow/);
    }
  });
});

describe("a service without an allow-list", () => {
  let sink: HttpsSink;
  let svc: TestService;
  beforeAll(async () => {
    sink = await HttpsSink.start();
    svc = await startTestService({
      notifyAllow: [],
      notifyCa: sink.ca,
      notifyRetryBaseMs: 20,
      rateLimit: { count: 10_000, windowMs: 1000 },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await sink?.close();
  });

  it("refuses a notify_url with an internal literal address at submission, naming the field", async () => {
    for (const hook of ["https://127.1/hook", "https://2130706433/hook", "https://169.254.169.254/latest"]) {
      const answer = await svc.submit(ROUTER_A, { description: "ssrf", script: ":put 1", notify_url: hook });
      expect(answer.status, hook).toBe(422);
      expect(answer.body.error.details).toEqual([
        { field: "notify_url", message: expect.stringMatching(/which this service does not call/) },
      ]);
    }
  });

  it("never connects to a host name that resolves to loopback: the delivery fails with the reason", async () => {
    const port = new URL(sink.url).port;
    const hook = `https://localhost:${port}/hook`;
    const answer = await svc.submit(ROUTER_A, {
      description: "resolves inward",
      script: ":put 1",
      express_execute: true,
      notify_url: hook,
    });
    expect(answer.status).toBe(202);
    const error = await eventually(async () => {
      const { rows } = await svc.service.app.db.query<{ last_error: string | null }>(
        "SELECT last_error FROM outbox WHERE url = $1 AND last_error IS NOT NULL",
        [hook],
      );
      return rows[0]?.last_error ?? undefined;
    });
    expect(error).toMatch(/a loopback address, which this service does not call/);
    expect(sink.received).toHaveLength(0);
  });
});
