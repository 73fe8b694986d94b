import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { RouterApiClient } from "../../../src/routeros/api/client.js";
import { runCli } from "../../helpers/cli.js";
import { scratchDir } from "../../helpers/scratch.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
let dir: string;
let passwordFile: string;
beforeAll(() => {
  dir = scratchDir("routerjobs-simulate-");
  passwordFile = join(dir, "password");
  writeFileSync(passwordFile, "s3cret-simulate\n", { mode: 0o600 });
});

/** Runs `router simulate` until the callback is done, then SIGTERM; returns the exit code. */
async function withDevice(args: string[], use: (port: number) => Promise<void>): Promise<number | null> {
  const child = spawn(process.execPath, ["bin/routerjobs.js", "router", "simulate", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
    const ready = JSON.parse(line) as { address: string; tls: boolean };
    expect(ready.tls).toBe(false);
    await use(Number(ready.address.split(":")[1]));
  } finally {
    child.kill("SIGTERM");
  }
  const [code] = await once(child, "exit");
  return code as number | null;
}

describe("routerjobs router simulate", () => {
  it("keeps its configuration in --state-file across a restart (plain TCP)", async () => {
    const stateFile = join(dir, "state.json");
    const args = [
      "--api",
      "127.0.0.1:0",
      "--user",
      "ops",
      "--password-file",
      passwordFile,
      "--state-file",
      stateFile,
    ];
    const session = (port: number) =>
      RouterApiClient.connect({
        host: "127.0.0.1",
        port,
        user: "ops",
        password: "s3cret-simulate",
        allowPlaintext: true,
      });
    expect(
      await withDevice(args, async (port) => {
        const client = await session(port);
        await client.command({
          command: "/ip/address/add",
          attributes: { address: "10.1.1.1/24", interface: "ether3" },
        });
        client.close();
      }),
    ).toBe(0);
    expect(
      await withDevice(args, async (port) => {
        const client = await session(port);
        const reply = await client.command({
          command: "/ip/address/print",
          proplist: ["address", "interface"],
        });
        expect(reply.records).toEqual([{ address: "10.1.1.1/24", interface: "ether3" }]);
        client.close();
      }),
    ).toBe(0);
  });

  it("saves a binary backup over the API (/system/backup/save), lists it in /file/print, keeps it across a restart", async () => {
    const args = [
      "--api",
      "127.0.0.1:0",
      "--user",
      "ops",
      "--password-file",
      passwordFile,
      "--state-file",
      join(dir, "backup-state.json"),
    ];
    const session = (port: number) =>
      RouterApiClient.connect({
        host: "127.0.0.1",
        port,
        user: "ops",
        password: "s3cret-simulate",
        allowPlaintext: true,
      });
    const backups = async (port: number) => {
      const client = await session(port);
      try {
        const reply = await client.command({
          command: "/file/print",
          proplist: ["name", "type"],
          queries: ["?type=backup"],
        });
        return reply.records;
      } finally {
        client.close();
      }
    };
    expect(
      await withDevice(args, async (port) => {
        // The sentence the device back end sends for a device with binary_backup.
        const client = await session(port);
        const saved = await client.command({
          command: "/system/backup/save",
          attributes: { name: "routerjobs-job-3", "dont-encrypt": "yes" },
        });
        expect(saved.records).toEqual([]);
        client.close();
        expect(await backups(port)).toEqual([{ name: "routerjobs-job-3.backup", type: "backup" }]);
      }),
    ).toBe(0);
    expect(
      await withDevice(args, async (port) => {
        expect(await backups(port)).toEqual([{ name: "routerjobs-job-3.backup", type: "backup" }]);
      }),
    ).toBe(0);
  });

  it("names the flag that is wrong and exits 2", async () => {
    const missing = await runCli([
      "router",
      "simulate",
      "--api",
      "127.0.0.1:0",
      "--password-file",
      passwordFile,
    ]);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toMatch(/--user is required/);
    const badApi = await runCli([
      "router",
      "simulate",
      "--api",
      "localhost",
      "--user",
      "a",
      "--password-file",
      passwordFile,
    ]);
    expect(badApi.stderr).toMatch(/--api must be HOST:PORT/);
    const noFile = await runCli([
      "router",
      "simulate",
      "--api",
      "127.0.0.1:0",
      "--user",
      "a",
      "--password-file",
      join(dir, "nope"),
    ]);
    expect(noFile).toMatchObject({ code: 2 });
    expect(noFile.stderr).toMatch(/--password-file .*nope cannot be read: ENOENT/);
  });
});
