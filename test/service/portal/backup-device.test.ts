/**
 * `readBackup` of the device back end: the `.rsc` file `/export file=` wrote, read back with `/file/print`
 * over the real API protocol (TLS on loopback). The device's `/file/print` is played by a wrapper over the
 * simulated router's files, with a cap on `contents` as older RouterOS versions have.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RouterCommandError } from "../../../src/contract/routers/router-backend.js";
import type { CommandHandler } from "../../../src/routeros/api/server.js";
import type { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { DeviceBackend } from "../../../src/service/routers/device-backend.js";
import { PASSWORD, startDevice, USER } from "../../routeros/api/device.js";

const ROUTER = "d1000000-0000-4000-8000-000000000002";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `/file/print ?name=X =.proplist=name,size,contents` as a device answers it, `contents` cut at `cap` bytes. */
function filePrint(router: () => SimulatedRouter, cap: number): (inner: CommandHandler) => CommandHandler {
  return (inner) => (command) => {
    if (command.path !== "/file/print") return inner(command);
    const name = command.queries.find((query) => query.startsWith("?name="))?.slice("?name=".length);
    const text = name === undefined ? undefined : router().readFile(name);
    if (name !== undefined && text !== undefined) {
      const bytes = Buffer.from(text);
      command.record({
        name,
        size: String(bytes.length),
        contents: bytes.subarray(0, cap).toString(),
      });
    }
    return {};
  };
}

async function attached(cap = 1 << 20) {
  let router: SimulatedRouter | undefined;
  const device = await startDevice({ tls: true, wrap: filePrint(() => router as SimulatedRouter, cap) });
  router = device.router;
  cleanups.push(() => device.server.close());
  const backend = new DeviceBackend({ jobPollMs: 5, probeIntervalMs: 60_000 });
  cleanups.push(() => backend.detach(ROUTER));
  await backend.attach(ROUTER, {
    name: "edge",
    endpoint: {
      host: device.server.host,
      port: device.server.port,
      user: USER,
      password: PASSWORD,
      tls: { fingerprint: device.fingerprint as string },
    },
  });
  return { device, backend };
}

describe("the device back end's backup read", () => {
  it("reads the export file the backup wrote, without the router's secrets", async () => {
    const { backend } = await attached();
    await backend.command(ROUTER, "/system/identity/set", "=name=dev-backup");
    await backend.command(ROUTER, "/user/add", "=name=ops =group=full =password=Dev-Secret-77");
    const name = await backend.backup(ROUTER, "routerjobs-job-3");
    expect(name).toBe("routerjobs-job-3.rsc");
    const text = await backend.readBackup(ROUTER, name);
    expect(text).toMatch(/^# RouterOS .* export/);
    expect(text).toContain("set name=dev-backup");
    expect(text).not.toContain("Dev-Secret-77");
  });

  it("refuses a file the router hands over cut short, naming both sizes", async () => {
    const { backend } = await attached(16);
    const name = await backend.backup(ROUTER, "routerjobs-job-4");
    const read = backend.readBackup(ROUTER, name);
    await expect(read).rejects.toThrow(RouterCommandError);
    await expect(read).rejects.toThrow(
      /routerjobs-job-4\.rsc is \d+ bytes but the router's API gave 16 of them/,
    );
  });

  it("says which file the router does not have", async () => {
    const { backend } = await attached();
    await expect(backend.readBackup(ROUTER, "nothing-here.rsc")).rejects.toThrow(
      new RouterCommandError("no file nothing-here.rsc on the router"),
    );
  });
});
