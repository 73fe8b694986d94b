/**
 * The device back end against a simulated RouterOS device speaking the real API protocol over TLS on loopback
 * (src/routeros/simulator/adapters/api-front-end.ts behind src/routeros/api/server.ts), pinned by its certificate's fingerprint.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { DeviceEndpoint } from "../../../src/contract/routers/device-endpoint.js";
import { RouterCommandError, RouterUnreachableError } from "../../../src/contract/routers/router-backend.js";
import type { CommandHandler } from "../../../src/routeros/api/server.js";
import { quoteString } from "../../../src/routeros/language/quote.js";
import { DeviceBackend } from "../../../src/service/routers/device-backend.js";
import { jobWrapper, RESUMED_WITHOUT_ENTRY, startedComment } from "../../../src/service/routers/job-entry.js";
import { PASSWORD, startDevice, type TestDevice, USER } from "../../routeros/api/device.js";

const ROUTER = "d1000000-0000-4000-8000-000000000001";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(wrap?: (inner: CommandHandler, device: () => TestDevice) => CommandHandler) {
  let started: TestDevice | undefined;
  const device = await startDevice({
    tls: true,
    ...(wrap ? { wrap: (inner: CommandHandler) => wrap(inner, () => started as TestDevice) } : {}),
  });
  started = device;
  cleanups.push(() => device.server.close());
  const backend = new DeviceBackend({ jobPollMs: 5, probeIntervalMs: 60_000 });
  cleanups.push(() => backend.detach(ROUTER));
  const endpoint: DeviceEndpoint = {
    host: device.server.host,
    port: device.server.port,
    user: USER,
    password: PASSWORD,
    tls: { fingerprint: device.fingerprint as string },
  };
  await backend.attach(ROUTER, { name: "edge", endpoint });
  return { device, backend, endpoint };
}

const entries = (device: TestDevice) =>
  device.router.table("system-script").items.map((item) => item.values.name);

describe("the device back end", () => {
  it("is online after attach and answers a synchronous call with the service's keys", async () => {
    const { backend } = await setUp();
    expect(backend.isOnline(ROUTER)).toBe(true);
    const records = await backend.command(
      ROUTER,
      "/interface/print",
      "=.proplist=.id,name,default-name ?name=ether1",
    );
    expect(records).toEqual([{ id: expect.stringMatching(/^\*/), name: "ether1", default_name: "ether1" }]);
    await expect(
      backend.command(ROUTER, "/ip/address/add", "=address=nonsense =interface=ether1"),
    ).rejects.toThrow(RouterCommandError);
  });

  it("runs a job as a script entry under the wrapper, reads the outcome back and removes the entry", async () => {
    const { device, backend } = await setUp();
    const outcome = await backend.runScript(ROUTER, "/system identity set name=from-job", {
      jobName: "routerjobs-job-1",
    });
    expect(outcome).toEqual({ ok: true, output: "" });
    expect(device.router.table("system-identity").items[0]?.values.name).toBe("from-job");
    expect(entries(device)).toEqual([]);
  });

  it("reports a failing script with the router's text and line", async () => {
    const { device, backend } = await setUp();
    const outcome = await backend.runScript(
      ROUTER,
      ":put start\n/ip address add address=x interface=ether1",
      {
        jobName: "routerjobs-job-2",
      },
    );
    expect(outcome.ok).toBe(false);
    expect(outcome).toMatchObject({
      line: 2,
      error: expect.stringMatching(/invalid value.*address.*line 2/),
    });
    expect(entries(device)).toEqual([]);
  });

  it("takes the backup as an export file on the device", async () => {
    const { device, backend } = await setUp();
    expect(await backend.backup(ROUTER, "routerjobs-job-3")).toBe("routerjobs-job-3.rsc");
    expect(device.router.readFile("routerjobs-job-3.rsc")).toMatch(/^# RouterOS 7\.24/);
  });

  it("finds the outcome after the connection drops mid-job, and never starts the script twice", async () => {
    let executes = 0;
    const { device, backend } = await setUp((inner, current) => async (command) => {
      const result = await inner(command);
      // The job's start, not the boot marker each new connection reads (`as-string`).
      if (command.path === "/execute" && !command.attributes.has("as-string")) {
        executes++;
        // The management path drops right after the router took the job.
        setImmediate(() => current().server.dropSessions());
      }
      return result;
    });
    const outcome = await backend.runScript(ROUTER, ":delay 30ms\n/system identity set name=after-drop", {
      jobName: "routerjobs-job-4",
    });
    expect(outcome.ok).toBe(true);
    expect(executes).toBe(1);
    expect(device.router.table("system-identity").items[0]?.values.name).toBe("after-drop");
  });

  it("a resumed job the router has no entry of fails instead of running: the dead instance may have run it", async () => {
    const { device, backend } = await setUp();
    const outcome = await backend.runScript(ROUTER, "/system identity set name=twice", {
      jobName: "routerjobs-job-9",
      resumed: true,
    });
    expect(outcome).toMatchObject({ ok: false, error: RESUMED_WITHOUT_ENTRY });
    expect(device.router.table("system-identity").items[0]?.values.name).toBe("test-router");
    expect(entries(device)).toEqual([]);
    // AND a resumed job still `loaded` on the router was never started: it runs now
    await device.router.runScript(
      '/system script add name=routerjobs-job-10 source="/system identity set name=resumed" comment="routerjobs:loaded"',
    );
    expect(
      await backend.runScript(ROUTER, "/system identity set name=resumed", {
        jobName: "routerjobs-job-10",
        resumed: true,
      }),
    ).toEqual({ ok: true, output: "" });
    expect(device.router.table("system-identity").items[0]?.values.name).toBe("resumed");
  });

  it("a resumed job its dead instance marked started but never sent is taken over and runs once; the dead one's late start runs nothing", async () => {
    const { device, backend } = await setUp();
    const boot = (await device.router.runScript(":global routerjobsBoot; :put $routerjobsBoot")).output;
    expect(boot).toMatch(/^[0-9a-f]+$/);
    const script = ':global ran; :set ran ($ran . "x")';
    // GIVEN an entry the dead instance marked started for its attempt, whose /execute never left it
    await device.router.runScript(
      `/system script add name=routerjobs-job-11 source=${quoteString(script)} comment="${startedComment(boot, "dead01")}"`,
    );
    // WHEN the job is resumed
    const outcome = await backend.runScript(ROUTER, script, { jobName: "routerjobs-job-11", resumed: true });
    // THEN it completes, having run once, and its entry is gone
    expect(outcome).toEqual({ ok: true, output: "" });
    const ran = async () => (await device.router.runScript(":global ran; :put $ran")).output;
    expect(await ran()).toBe("x");
    expect(entries(device)).toEqual([]);
    // AND the dead instance's /execute, arriving late, runs nothing (the entry is not its own)
    await device.router.runScript(
      `/system script add name=routerjobs-job-11 source=${quoteString(script)} comment="routerjobs:completed"`,
    );
    expect(await device.router.runScript(jobWrapper("routerjobs-job-11", boot, "dead01"))).toMatchObject({
      ok: true,
    });
    expect(await ran()).toBe("x");
  });

  it("is offline with a wrong password or a certificate that does not match the pin, and says why", async () => {
    const { device, endpoint } = await setUp();
    for (const wrong of [
      { ...endpoint, password: "not-the-password" },
      { ...endpoint, tls: { fingerprint: `sha256:${"AB:".repeat(31)}AB` } },
    ]) {
      const backend = new DeviceBackend({ probeIntervalMs: 60_000 });
      await backend.attach(ROUTER, { name: "edge", endpoint: wrong });
      expect(backend.isOnline(ROUTER)).toBe(false);
      const error = await backend.command(ROUTER, "/system/identity/print").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RouterUnreachableError);
      expect(String((error as Error).message)).not.toContain(PASSWORD);
      expect(String((error as Error).message)).not.toContain("not-the-password");
      await backend.detach(ROUTER);
    }
    expect(device.router.table("system-identity").items[0]?.values.name).toBe("test-router");
  });
});
