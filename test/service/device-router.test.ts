/**
 * A device router end to end through the service's HTTP API: the router is added with a device endpoint, and the
 * service drives a simulated device speaking the real RouterOS API over TLS on loopback (pinned by fingerprint).
 * Simulated routers keep working beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { SimulatedRouter } from "../../src/routeros/simulator/router.js";
import { DeviceBackend } from "../../src/service/routers/device-backend.js";
import { MixedBackend } from "../../src/service/routers/mixed-backend.js";
import { PASSWORD, startDevice, type TestDevice, USER } from "../routeros/api/device.js";
import { ADMIN_TOKEN, eventually, ROUTER_A, startTestService, TEAM_A, type TestService } from "./harness.js";

const DEVICE_ROUTER = "de000000-0000-4000-8000-0000000000d1";
const WRONG_PASSWORD_ROUTER = "de000000-0000-4000-8000-0000000000d2";
const BINARY_ROUTER = "de000000-0000-4000-8000-0000000000d3";

describe("a device router through the service", () => {
  let device: TestDevice;
  /** The device of the router with `binary_backup`: its own, as job names restart at 1 on each router. */
  let binaryDevice: TestDevice;
  const backupSaves: Record<string, string>[] = [];
  let svc: TestService;
  const logs: string[] = [];

  beforeAll(async () => {
    device = await startDevice({ tls: true });
    svc = await startTestService(
      // The sync timeout is a deadline for the one call that never ends (the endless ping): a first call that
      // connects, does TLS and logs in must fit in it with a second suite on the two cores.
      { tickMs: 50, syncTimeoutMs: 5000, rateLimit: { count: 10_000, windowMs: 1000 } },
      new MixedBackend(new SimulatedBackend(), new DeviceBackend({ jobPollMs: 10, probeIntervalMs: 60_000 })),
      { logger: { level: "trace", stream: { write: (line: string) => logs.push(line) } } as never },
    );
    for (const [id, password] of [
      [DEVICE_ROUTER, PASSWORD],
      [WRONG_PASSWORD_ROUTER, "not-the-device-password"],
    ] as const) {
      const added = await svc.call("POST", "/admin/routers", {
        token: ADMIN_TOKEN,
        body: {
          team_id: TEAM_A,
          id,
          name: "branch",
          device: {
            host: device.server.host,
            port: device.server.port,
            user: USER,
            password,
            tls_fingerprint: device.fingerprint,
          },
        },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
    }
    binaryDevice = await startDevice({
      tls: true,
      wrap: (inner) => (command) => {
        if (command.path === "/system/backup/save") backupSaves.push(Object.fromEntries(command.attributes));
        return inner(command);
      },
    });
    const added = await svc.call("POST", "/admin/routers", {
      token: ADMIN_TOKEN,
      body: {
        team_id: TEAM_A,
        id: BINARY_ROUTER,
        name: "branch-binary",
        device: {
          host: binaryDevice.server.host,
          port: binaryDevice.server.port,
          user: USER,
          password: PASSWORD,
          tls_fingerprint: binaryDevice.fingerprint,
          binary_backup: true,
        },
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.data.device).toMatchObject({ binary_backup: true });
    expect(JSON.stringify(added.body)).not.toContain(PASSWORD);
  });
  afterAll(async () => {
    await svc?.close();
    await device?.server.close();
    await binaryDevice?.server.close();
  });

  const finished = (routerId: string, key: string) =>
    eventually(async () => {
      const job = (await svc.jobs(routerId)).find((item) => item.idempotency_key === key);
      return job && ["completed", "failed"].includes(job.status) ? job : undefined;
    }, 120_000);

  it("answers a synchronous call from the device", async () => {
    const answer = await svc.call("POST", `/api/synchronous/${DEVICE_ROUTER}`, {
      body: { command: "/system/identity/print" },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual([{ name: "test-router" }]);
  });

  it("answers the full configuration read (/export) with the device's export, and leaves no file on it", async () => {
    // GIVEN a device with something configured
    const added = await svc.call("POST", `/api/synchronous/${DEVICE_ROUTER}`, {
      body: { command: "/ip/address/add", parameters: "=address=10.77.0.1/24 =interface=ether3" },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    // WHEN plan's one request reads its configuration
    const read = await svc.call("POST", `/api/synchronous/${DEVICE_ROUTER}`, {
      body: { command: "/export" },
    });
    // THEN it is one record holding the export, with the address in its menu
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.data).toHaveLength(1);
    const text = read.body.data[0].ret as string;
    expect(text).toMatch(
      /^\/ip address\nadd address=10\.77\.0\.1\/24 interface=ether3 network=10\.77\.0\.0$/m,
    );
    // AND the file the export went through is gone from the device
    const files = await svc.call("POST", `/api/synchronous/${DEVICE_ROUTER}`, {
      body: { command: "/file/print" },
    });
    expect((files.body.data as { name: string }[]).map((file) => file.name)).not.toContainEqual(
      expect.stringMatching(/^routerjobs-read-/),
    );
  });

  it("runs a job with a backup on the device, and a failing job fails with the device's reason", async () => {
    const ok = (
      await svc.submit(DEVICE_ROUTER, {
        description: "identity",
        script: "/system identity set name=from-service",
        make_backup: true,
        express_execute: true,
      })
    ).body.data;
    const failing = (
      await svc.submit(DEVICE_ROUTER, {
        description: "bad address",
        script: ":put start\n/ip address add address=nonsense interface=ether1",
        express_execute: true,
      })
    ).body.data;
    expect(await finished(DEVICE_ROUTER, ok.idempotency_key)).toMatchObject({
      status: "completed",
      error: null,
    });
    expect(device.router.table("system-identity").items[0]?.values.name).toBe("from-service");
    const [{ backup_name: backup }] = (
      await svc.service.app.db.query<{ backup_name: string }>(
        "SELECT backup_name FROM jobs WHERE idempotency_key = $1",
        [ok.idempotency_key],
      )
    ).rows as [{ backup_name: string }];
    expect(device.router.readFile(backup)).toMatch(/^# RouterOS/);
    // Without binary_backup the export is the whole backup.
    expect(device.router.backupNames).toEqual([]);
    const failed = await finished(DEVICE_ROUTER, failing.idempotency_key);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/invalid value.*line 2/);
  });

  it("a job whose entry is removed on the device while it runs fails once, and is not run again", async () => {
    // What a restore that loads a backup inside the script would do: the entry goes, the job must not rerun.
    const submitted = (
      await svc.submit(DEVICE_ROUTER, {
        description: "removes its entry",
        script: ':log info "entry-removing-job ran"\n/system script remove [find]',
        express_execute: true,
      })
    ).body.data;
    const job = await finished(DEVICE_ROUTER, submitted.idempotency_key);
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(/^the job's script entry was removed from the router while the job ran/);
    const runs = device.router.logEntries.filter((entry) => entry.message === "entry-removing-job ran");
    expect(runs).toHaveLength(1);
  });

  it("with binary_backup, a job's backup is the export and a binary backup of one name, both listed over the API", async () => {
    // GIVEN the router with binary_backup, shown so by the admin API and without its password
    const shown = await svc.call("GET", `/admin/routers/${BINARY_ROUTER}`, { token: ADMIN_TOKEN });
    expect(shown.body.data.device).toEqual({
      host: binaryDevice.server.host,
      port: binaryDevice.server.port,
      user: USER,
      transport: "tls",
      tls_fingerprint: binaryDevice.fingerprint,
      binary_backup: true,
    });
    expect(JSON.stringify(shown.body)).not.toContain(PASSWORD);
    // WHEN a job with make_backup runs on it
    const submitted = (
      await svc.submit(BINARY_ROUTER, {
        description: "identity",
        script: "/system identity set name=binary-backed",
        make_backup: true,
        express_execute: true,
      })
    ).body.data;
    const job = await finished(BINARY_ROUTER, submitted.idempotency_key);
    expect(job).toMatchObject({ status: "completed", error: null });
    // THEN the job names the export, as without the option (the portal's download reads it)
    const base = `routerjobs-job-${job.seq_id}`;
    const { rows } = await svc.service.app.db.query<{ backup_name: string }>(
      "SELECT backup_name FROM jobs WHERE idempotency_key = $1",
      [submitted.idempotency_key],
    );
    expect(rows).toEqual([{ backup_name: `${base}.rsc` }]);
    // AND the device holds both files, as its /file/print lists them to the service
    const files = await svc.call("POST", `/api/synchronous/${BINARY_ROUTER}`, {
      body: { command: "/file/print", parameters: `?name=${base}.backup` },
    });
    expect(files.status, JSON.stringify(files.body)).toBe(200);
    expect(files.body.data).toEqual([expect.objectContaining({ name: `${base}.backup`, type: "backup" })]);
    expect(binaryDevice.router.readFile(`${base}.rsc`)).toMatch(/^# RouterOS/);
    expect(binaryDevice.router.backupNames).toEqual([`${base}.backup`]);
    // AND the binary backup was saved unencrypted, of the configuration before the job
    expect(backupSaves).toEqual([{ name: base, "dont-encrypt": "yes" }]);
    const scratch = new SimulatedRouter({ name: "scratch" });
    scratch.restore(binaryDevice.router.snapshot());
    expect(scratch.table("system-identity").items[0]?.values.name).toBe("binary-backed");
    scratch.loadBackup(`${base}.backup`);
    expect(scratch.table("system-identity").items[0]?.values.name).toBe("test-router");
  });

  it("keeps a device with a wrong password offline: 502, and no password in the answer or any log line", async () => {
    const answer = await svc.call("POST", `/api/synchronous/${WRONG_PASSWORD_ROUTER}`, {
      body: { command: "/system/identity/print" },
    });
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe("router_unreachable");
    expect(JSON.stringify(answer.body)).not.toContain("not-the-device-password");
    const all = logs.join("\n");
    expect(logs.length).toBeGreaterThan(0);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain("not-the-device-password");
  });

  it("a command the device does not finish answers 504 at the sync timeout, and the device is told to stop", async () => {
    const before = device.seen.length;
    // An endless ping streams until it is cancelled: a device that never finishes the call.
    const answer = await svc.call("POST", `/api/synchronous/${DEVICE_ROUTER}`, {
      body: { command: "/tool/ping", parameters: "=address=192.0.2.1" },
    });
    expect(answer.status).toBe(504);
    expect(answer.body.error.code).toBe("router_timeout");
    const ping = device.seen.slice(before).find((command) => command.path === "/tool/ping");
    await eventually(async () => (ping?.signal.aborted ? true : undefined));
    // AND the connection goes on serving the next call
    const next = await svc.call("POST", `/api/synchronous/${DEVICE_ROUTER}`, {
      body: { command: "/system/identity/print" },
    });
    expect(next.status).toBe(200);
  });

  it("leaves simulated routers as they were", async () => {
    const answer = await svc.call("POST", `/api/synchronous/${ROUTER_A}`, {
      body: { command: "/system/identity/print" },
    });
    expect(answer.status).toBe(200);
  });
});
