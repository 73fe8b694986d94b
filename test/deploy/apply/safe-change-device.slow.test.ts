/**
 * A safe change through our service's device back end, against a `routerjobs router simulate` device process
 * over API-SSL: the device holds its own configuration against the connecting address (the reachability
 * model), runs its scheduler on its own clock, and a backup load reboots it. Slow: the revert fires on the
 * device's real clock, at the shortest deadline a safe change takes (10 s), which apply's own wait covers.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import { type ApplyContext, applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { RouterApiClient } from "../../../src/routeros/api/client.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { DeviceBackend } from "../../../src/service/routers/device-backend.js";
import { MixedBackend } from "../../../src/service/routers/mixed-backend.js";
import { type SimulateReady, startSimulate } from "../../helpers/device-process.js";
import { PASSWORD, USER } from "../../routeros/api/device.js";
import { ADMIN_TOKEN, clientOf, startTestService, TEAM_A, type TestService } from "../../service/harness.js";
import { safeJob } from "./safe-job.js";

const DEVICE_ROUTER = "de000000-0000-4000-8000-0000000000e1";

describe("routerjobs apply with safeChange on a device router", () => {
  let dir: string;
  let device: Awaited<ReturnType<typeof startSimulate<SimulateReady>>>;
  let port: number;
  let service: TestService;
  let client: RouterJobsClient;
  let lines: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-safe-device-"));
    await writeFile(join(dir, "password"), PASSWORD, { mode: 0o600 });
    device = await startSimulate([
      "--api",
      "127.0.0.1:0",
      "--tls",
      "--user",
      USER,
      "--password-file",
      join(dir, "password"),
      "--name",
      "edge-d",
    ]);
    port = Number(device.ready.address.slice(device.ready.address.lastIndexOf(":") + 1));
    service = await startTestService(
      {},
      new MixedBackend(
        new SimulatedBackend(),
        // The probe notices the device answering again after its revert and reboot.
        new DeviceBackend({ jobPollMs: 10, probeIntervalMs: 200, connectTimeoutMs: 2000 }),
      ),
    );
    const added = await service.call("POST", "/admin/routers", {
      token: ADMIN_TOKEN,
      body: {
        team_id: TEAM_A,
        id: DEVICE_ROUTER,
        name: "branch",
        device: {
          host: "127.0.0.1",
          port,
          user: USER,
          password: PASSWORD,
          tls_fingerprint: device.ready.fingerprint,
        },
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    client = clientOf(service, join(dir, "budget"));
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
    device?.child.kill("SIGTERM");
    await device?.exited;
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    lines = [];
  });

  const context = (): ApplyContext => ({
    client,
    journal: new Journal(join(dir, "state")),
    instanceId: "instance-1",
    write: (line) => lines.push(line),
  });
  /** The test's own look at the device, over a session of its own (from the same address as the service). */
  async function onDevice(source: string): Promise<string> {
    const session = await RouterApiClient.connect({
      host: "127.0.0.1",
      port,
      user: USER,
      password: PASSWORD,
      tls: { fingerprint: device.ready.fingerprint as string },
    });
    try {
      const reply = await session.command({
        command: "/execute",
        attributes: { script: source, "as-string": "" },
      });
      return reply.done.ret ?? "";
    } finally {
      session.close();
    }
  }
  const exportOf = () => onDevice("/export");
  const filesOnDevice = () => onDevice(":foreach file in=[/file find] do={ :put [/file get $file name] }");

  it("a change that keeps the service's way in is confirmed on the device, and nothing stays scheduled", async () => {
    const result = await applyJob(
      safeJob(
        "telnet",
        "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23",
        DEVICE_ROUTER,
      ),
      context(),
    );
    expect(result.outcome, lines.join("\n")).toBe("completed");
    expect(lines.join("\n")).toMatch(
      /confirmed: the service reached the router again; the revert routerjobs-safe-\w+ is disarmed/,
    );
    const after = await exportOf();
    expect(after).toContain("dst-port=23");
    expect(after).not.toContain("scheduler");
    expect(await filesOnDevice()).not.toMatch(/routerjobs-safe-/);
  });

  it("a change that drops the service's address reverts on the device at the deadline, and apply says so", async () => {
    // GIVEN the device as it is before the change
    const before = await exportOf();
    // WHEN a safe change drops the service's address (loopback: the service connects from 127.0.0.1)
    const result = await applyJob(
      safeJob(
        "lockout",
        "/ip firewall filter add chain=input action=drop src-address=127.0.0.1",
        DEVICE_ROUTER,
        "10s",
      ),
      context(),
    );
    // THEN the device restored itself at the deadline, and apply reports the revert
    expect(result, lines.join("\n")).toMatchObject({
      outcome: "failed",
      reason: `reverted on branch (${DEVICE_ROUTER}): the service could not reach it within 10s after the change`,
    });
    expect(await exportOf()).toBe(before);
    expect(await filesOnDevice()).not.toMatch(/routerjobs-safe-/);
  });
});
