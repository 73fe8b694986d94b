/**
 * Rollback on a device router: the service drives a simulated device over the RouterOS API (TLS on loopback),
 * so the backup is the device back end's export (`routerjobs-job-<seq>.rsc`) and the restore takes the
 * `reset-configuration ... run-after-reset=` branch of the restore script, started in the background so that
 * the job reports before the reset removes its script entry. A device with `binary_backup` also has
 * `routerjobs-job-<seq>.backup`, which the restore prefers (`backup load`, in the background for the same
 * reason): it brings back what no export holds, such as a user's password. The simulated device does not go
 * down for the reboot the reset or the load asks for; a real device does (docs/rollback.md).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import type { ApplyJob } from "../../../src/contract/apply-job.js";
import { applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { DeviceBackend } from "../../../src/service/routers/device-backend.js";
import { MixedBackend } from "../../../src/service/routers/mixed-backend.js";
import { declareJob } from "../../helpers/declared-job.js";
import { PASSWORD, startDevice, type TestDevice, USER } from "../../routeros/api/device.js";
import {
  ADMIN_TOKEN,
  clientOf,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
} from "../../service/harness.js";

const DEVICE_ROUTER = "de000000-0000-4000-8000-0000000000e1";
const BINARY_ROUTER = "de000000-0000-4000-8000-0000000000e2";

/** A job as the constructs write it, with rollback on failure; each router its own resource. */
function declare(routerId: string, script: string): ApplyJob {
  const resource = routerId === DEVICE_ROUTER ? "branch/vlan" : "branch-binary/vlan";
  return declareJob(routerId, resource, {
    description: "guest vlan",
    script,
    timeoutMs: 20_000,
    rollback: "on-failure",
  });
}

describe("rollback on a device router", () => {
  let device: TestDevice;
  let binaryDevice: TestDevice;
  let svc: TestService;
  let client: RouterJobsClient;
  let stateDir: string;

  beforeAll(async () => {
    device = await startDevice({ tls: true });
    svc = await startTestService(
      { tickMs: 50, syncTimeoutMs: 5000, rateLimit: { count: 10_000, windowMs: 1000 } },
      new MixedBackend(new SimulatedBackend(), new DeviceBackend({ jobPollMs: 10, probeIntervalMs: 60_000 })),
    );
    // Each router its own device: both routers' first job is routerjobs-job-1, and the files would collide.
    binaryDevice = await startDevice({ tls: true });
    for (const [id, target, extra] of [
      [DEVICE_ROUTER, device, {}],
      [BINARY_ROUTER, binaryDevice, { binary_backup: true }],
    ] as const) {
      const added = await svc.call("POST", "/admin/routers", {
        token: ADMIN_TOKEN,
        body: {
          team_id: TEAM_A,
          id,
          name: "branch",
          device: {
            host: target.server.host,
            port: target.server.port,
            user: USER,
            password: PASSWORD,
            tls_fingerprint: target.fingerprint,
            ...extra,
          },
        },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
    stateDir = await mkdtemp(join(tmpdir(), "rj-rollback-device-"));
    client = clientOf(svc, stateDir);
  });
  afterAll(async () => {
    await client?.close();
    await svc?.close();
    await device?.server.close();
    await binaryDevice?.server.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  it("restores the device from the export its failed job's backup wrote, keeping the users", async () => {
    // GIVEN a device with some configuration, and a change that fails half way
    await device.router.runSource("/ip dns set servers=10.0.0.53\n/interface bridge add name=lan");
    const before = (await device.router.runSource("/export")).join("\n");
    const users = (await device.router.runSource("/user print")).join("\n");
    const job = declare(
      DEVICE_ROUTER,
      '/interface bridge remove lan\n/ip dns set servers=9.9.9.9\n:error "half way"',
    );
    // WHEN apply runs it with rollback
    const result = await applyJob(job, {
      client,
      journal: new Journal(stateDir),
      instanceId: "i-1",
      write: () => {},
    });
    // THEN it fails, and the restore job completed (it reported before the reset that removes its entry)
    expect(result.outcome).toBe("failed");
    if (result.outcome === "failed")
      expect(result.reason).toMatch(
        /half way.*; rolled back: the router is restored from backup routerjobs-job-\d+/,
      );
    // AND, once the reset the restore job started in the background ran, the configuration is as before
    await device.router.jobsIdle();
    expect((await device.router.runSource("/export")).join("\n")).toBe(before);
    expect((await device.router.runSource("/user print")).join("\n")).toBe(users);
    expect(device.router.logEntries.some((entry) => entry.message === "configuration reset")).toBe(true);
  });

  it("restores a device with binary_backup from the .backup: the configuration and a user's password", async () => {
    // GIVEN a device with some configuration and a user with a password
    const router = binaryDevice.router;
    await router.runSource(
      "/ip dns set servers=10.0.0.53\n/interface bridge add name=lan\n/user add name=ops group=read password=before-Pass-1",
    );
    const before = (await router.runSource("/export")).join("\n");
    const password = () => router.table("user").items.find((u) => u.values.name === "ops")?.values.password;
    // AND a change that sets that password (an export holds no password: only the binary backup brings it
    // back) and fails half way
    const job = declare(
      BINARY_ROUTER,
      '/interface bridge remove lan\n/user set ops password=after-Pass-2\n:error "half way"',
    );
    // WHEN apply runs it with rollback
    const result = await applyJob(job, {
      client,
      journal: new Journal(stateDir),
      instanceId: "i-1",
      write: () => {},
    });
    // THEN it fails, and the restore job completed (it reported before the load that replaces its entry)
    expect(result.outcome).toBe("failed");
    if (result.outcome === "failed")
      expect(result.reason).toMatch(/half way.*; rolled back: the router is restored from backup/);
    // AND the job's backup was both files on the device
    const backup = /routerjobs-job-\d+/.exec(result.outcome === "failed" ? result.reason : "")?.[0];
    expect(router.readFile(`${backup}.rsc`)).toMatch(/^# RouterOS/);
    expect(router.backupNames).toContain(`${backup}.backup`);
    // AND, once the load the restore job started in the background ran: configuration and password are back
    await router.jobsIdle();
    expect((await router.runSource("/export")).join("\n")).toBe(before);
    expect(password()).toBe("before-Pass-1");
    const messages = router.logEntries.map((entry) => entry.message);
    expect(messages).toContain(`configuration restored from ${backup}.backup`);
    expect(messages).not.toContain("configuration reset");
  });

  it("restores the device from the service's backup through the sites API, the reset in the background", async () => {
    // GIVEN the device with some configuration, and a client of the sites API (which serves the job's backup)
    await device.router.runSource("/ip dns set servers=10.0.0.54\n/interface bridge add name=guest");
    const before = (await device.router.runSource("/export")).join("\n");
    const sdxDir = await mkdtemp(join(tmpdir(), "rj-rollback-device-sdx-"));
    const sdx = clientOf(svc, sdxDir, TOKEN_A, "sdx");
    try {
      const job = declareJob(DEVICE_ROUTER, "branch/sdx", {
        description: "guest bridge",
        script: '/interface bridge remove guest\n/ip dns set servers=9.9.9.9\n:error "half way"',
        timeoutMs: 20_000,
        rollback: "on-failure",
      });
      // WHEN apply runs it with rollback through the sites API
      const result = await applyJob(job, {
        client: sdx,
        journal: new Journal(sdxDir),
        instanceId: "i-2",
        write: () => {},
      });
      // THEN the restore job completed from the service's backup (it reported before the reset)
      expect(result.outcome).toBe("failed");
      if (result.outcome === "failed")
        expect(result.reason).toMatch(
          /; rolled back: the router is restored from the service's backup routerjobs-job-\d+\.rsc \(restore job /,
        );
      // AND the export was written to the device, and the reset in the background brought the configuration back
      await device.router.jobsIdle();
      expect(
        device.router.logEntries.some((entry) =>
          /^run-after-reset script routerjobs-restore-/.test(entry.message),
        ),
      ).toBe(true);
      expect((await device.router.runSource("/export")).join("\n")).toBe(before);
    } finally {
      await sdx.close();
      await rm(sdxDir, { recursive: true, force: true });
    }
  });
});
