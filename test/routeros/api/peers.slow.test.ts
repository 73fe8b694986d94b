/**
 * Independent proof: implementations of the RouterOS API that nobody here wrote talk to our simulated device.
 * - Debian's python3-librouteros (GPL, installed with apt as a test tool) against `routerjobs router simulate`
 *   spawned from the built CLI, over TLS pinned by the fingerprint it prints; unset words and stable ids too.
 * - npm's routeros-api 1.0.2 (MIT) against an in-process device, including `/cancel` of a stream.
 * Without librouteros the Python part skips with the reason, except under CI=true, where it fails.
 */

import { type ChildProcess, execFile, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { RouterOSAPI } from "routeros-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimulate } from "../../helpers/device-process.js";
import { PASSWORD, startDevice, type TestDevice } from "./device.js";

const PYTHON = "/usr/bin/python3";

function librouterosAvailability(): { available: boolean; reason?: string } {
  const probe = spawnSync(PYTHON, ["-c", "import librouteros"], { encoding: "utf8" });
  if (probe.status === 0) return { available: true };
  const reason = `${PYTHON} cannot import librouteros (apt-get install -y python3-librouteros)`;
  if (process.env.CI === "true") throw new Error(`${reason}: required in CI`);
  process.stdout.write(`skipping the librouteros peer tests: ${reason}\n`);
  return { available: false, reason };
}

const python = librouterosAvailability();

describe.skipIf(!python.available)("python3-librouteros against `routerjobs router simulate --tls`", () => {
  let child: ChildProcess;
  let ready: { address: string; tls: boolean; fingerprint: string; certificate: string };
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "routerjobs-peer-"));
    writeFileSync(join(dir, "password"), `${PASSWORD}\n`, { mode: 0o600 });
    ({ child, ready } = await startSimulate<typeof ready>([
      "--api",
      "127.0.0.1:0",
      "--tls",
      "--user",
      "admin",
      "--password-file",
      join(dir, "password"),
      "--name",
      "peer-router",
    ]));
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints where it listens and the certificate's fingerprint, never the password", () => {
    expect(ready).toMatchObject({
      tls: true,
      fingerprint: expect.stringMatching(/^sha256:([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
    });
    expect(ready.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(JSON.stringify(ready)).not.toContain(PASSWORD);
  });

  it("logs in, prints with .proplist and queries, adds, traps, reads !empty, runs /execute, unsets, keeps ids", async () => {
    const { stdout } = await promisify(execFile)(
      PYTHON,
      [join(import.meta.dirname, "peers", "librouteros_checks.py")],
      {
        env: {
          PATH: process.env.PATH,
          ROUTER_PORT: ready.address.split(":")[1],
          ROUTER_PASSWORD: PASSWORD,
          ROUTER_FINGERPRINT: ready.fingerprint,
        },
        timeout: 30_000,
      },
    );
    const results = JSON.parse(stdout);
    expect(results).toMatchObject({
      wrong_password: "invalid user name or password (6)",
      fingerprint_matches: true,
      identity: [{ name: "peer-router" }],
      add_ret: expect.stringMatching(/^\*[0-9A-F]+$/),
      select_or: [{ name: "ether1" }, { name: "ether2" }],
      trap: "failure: already have such address",
      trap_category: [1, "input does not match any value of interface"],
      trap_missing: [0, "no such command or directory (adress)"],
      empty: [],
      execute: [{ ret: "py" }],
    });
    expect(results.select).toEqual([
      { ".id": results.add_ret, address: "10.9.0.1/24", comment: "from python" },
    ]);
    expect(results.unset).toEqual([{ ".id": results.add_ret }]);
    const before = results.ids_before as Record<string, string>;
    expect(Object.keys(before)).toEqual(["peer-a.rsc", "peer-b.rsc", "peer-c.rsc"]);
    expect(results.ids_after_one_removed).toEqual({
      "peer-b.rsc": before["peer-b.rsc"],
      "peer-c.rsc": before["peer-c.rsc"],
    });
    expect(results.names_after_two_removed).toEqual(["peer-b.rsc"]);
  });

  it("exits 0 on SIGTERM", async () => {
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });
});

describe("npm routeros-api 1.0.2 against an in-process device over TLS", () => {
  let device: TestDevice;
  const clients: RouterOSAPI[] = [];
  beforeAll(async () => {
    device = await startDevice({ tls: true });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await device.server.close();
  });
  const connect = (password = PASSWORD) => {
    const client = new RouterOSAPI({
      host: "127.0.0.1",
      port: device.server.port,
      user: "admin",
      password,
      // The device's self-signed certificate is its own trust anchor; it names 127.0.0.1.
      tls: { ca: device.cert as string },
      timeout: 10,
    });
    clients.push(client);
    return client.connect();
  };

  it("refuses a wrong password (the library recognises the router's text and gives its own)", async () => {
    await expect(connect(`${PASSWORD}x`)).rejects.toThrow("Username or password is invalid");
  });

  it("prints with .proplist and a query, adds, traps and reads !empty", async () => {
    const api = await connect();
    const [added] = await api.write("/ip/address/add", ["=address=10.8.0.1/24", "=interface=ether2"]);
    expect(added?.ret).toMatch(/^\*[0-9A-F]+$/);
    expect(await api.write("/ip/address/print", ["=.proplist=.id,address", "?interface=ether2"])).toEqual([
      { ".id": added?.ret, address: "10.8.0.1/24" },
    ]);
    await expect(api.write("/ip/address/add", ["=address=10.8.0.1/24", "=interface=ether2"])).rejects.toThrow(
      "failure: already have such address",
    );
    expect(await api.write("/ip/address/print", ["?interface=ether9"])).toEqual([]);
  });

  it("stops a streaming /tool/ping with /cancel, and the device's command sees it", async () => {
    const api = await connect();
    const seqs: string[] = [];
    let stream!: ReturnType<RouterOSAPI["stream"]>;
    await new Promise<void>((resolve, reject) => {
      stream = api.stream(
        ["/tool/ping", "=address=192.0.2.7"],
        (error: Error | null, packet: { seq: string }) => {
          if (error) return reject(error);
          seqs.push(packet.seq);
          if (seqs.length === 3) resolve();
        },
      );
    });
    await stream.stop();
    const ping = device.seen.filter((command) => command.path === "/tool/ping").at(-1);
    expect(ping?.signal.aborted).toBe(true);
    expect(seqs.slice(0, 3)).toEqual(["0", "1", "2"]);
    expect(await api.write("/system/identity/print")).toEqual([{ name: "test-router" }]);
  });
});
