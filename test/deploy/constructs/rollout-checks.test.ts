import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checks } from "../../../src/deploy/constructs/index.js";
import { checkProblem } from "../../../src/deploy/constructs/rollout-checks.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";

const ROUTER = "r1";

async function freshRouter(): Promise<SimulatedBackend> {
  const backend = new SimulatedBackend({ seed: 3 });
  await backend.attach(ROUTER, { name: "edge-1" });
  return backend;
}

describe("check scripts", () => {
  it("accepts reads and the scripting language, refuses anything that writes", () => {
    expect(
      checkProblem(':put [/system identity get name]\n/ip route print where dst-address="0.0.0.0/0"'),
    ).toBe(undefined);
    expect(checkProblem("/ip dns set servers=1.1.1.1")).toBe(
      "must only read (print, get, find, export, monitor, ping): it runs `/ip dns set`",
    );
    // A write hidden in a lookup or a branch is a write too
    expect(checkProblem(":if ([:len [/ip address find]] > 0) do={/ip address remove [find]}")).toMatch(
      /it runs `\/ip address remove`/,
    );
    expect(checkProblem("/system reboot")).toMatch(/`\/system reboot`/);
  });

  it("refuses a script that does not parse, with the parser's explanation", () => {
    expect(checkProblem("/ip adress print")).toMatch(/`adress`.*did you mean `address`/);
  });

  it("builds typed checks that pass validation and fail on the router with their reason", async () => {
    // GIVEN a fresh simulated router: ether1 runs, it has no address and no default route
    const backend = await freshRouter();
    const run = (script: string) => backend.runScript(ROUTER, script, {} as never);
    const typed = [
      checks.routePresent("0.0.0.0/0"),
      checks.addressPresent("10.1.0.1/24"),
      checks.interfaceRunning("ether1"),
      checks.pingAnswers("10.1.0.254"),
    ];
    for (const script of typed) expect(checkProblem(script)).toBeUndefined();
    // THEN the missing route and address fail, naming what is missing; the running interface passes
    expect(await run(checks.routePresent("0.0.0.0/0"))).toMatchObject({
      ok: false,
      error: expect.stringContaining("no active route to 0.0.0.0/0"),
    });
    expect(await run(checks.addressPresent("10.1.0.1/24"))).toMatchObject({
      ok: false,
      error: expect.stringContaining("address 10.1.0.1/24 is missing"),
    });
    expect(await run(checks.interfaceRunning("ether1"))).toMatchObject({ ok: true });
    expect(await run(checks.interfaceRunning("ether9"))).toMatchObject({ ok: false });
    // AND once the address exists, its check passes
    await run("/ip address add address=10.1.0.1/24 interface=ether1");
    expect(await run(checks.addressPresent("10.1.0.1/24"))).toMatchObject({ ok: true });
  });

  it("refuses a ping count out of range", () => {
    expect(() => checks.pingAnswers("10.0.0.1", 0)).toThrow(
      "count must be a whole number from 1 to 100 (got number 0)",
    );
  });

  it("quotes any interface name so the check still parses and stays read-only (property)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), (name) => {
        expect(checkProblem(checks.interfaceRunning(name))).toBeUndefined();
      }),
    );
  });
});
