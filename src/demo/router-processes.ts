/**
 * The demo's routers as processes of their own: each one a `routerjobs router simulate` speaking the RouterOS
 * API over TLS (api-ssl) on loopback, which the service drives as a device (src/service/routers/device-backend.ts)
 * exactly as it would drive a MikroTik router: login, the backup, the script uploaded and run under the
 * wrapper, the outcome read back. Its password is in a 0600 file and reaches the service through the seed,
 * never a command line; the service pins each device's certificate by the fingerprint the device printed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Device } from "../contract/device.js";
import { EnvironmentError } from "../errors.js";
import { PACKAGE_ROOT } from "./local-stack.js";

const DEVICE_USER = "routerjobs";

export interface RouterProcesses {
  /** Each router's device, by router id: what the service's seed takes. */
  readonly devices: ReadonlyMap<string, Device>;
  /** Stops every device (SIGTERM to its process group) and waits until each is gone. */
  close(): Promise<void>;
}

export async function startRouterProcesses(
  dir: string,
  routers: readonly { readonly id: string; readonly name: string }[],
): Promise<RouterProcesses> {
  const folder = join(dir, "routers");
  await mkdir(folder, { recursive: true });
  const children: ChildProcess[] = [];
  const close = async () => {
    await Promise.all(children.map(stop));
  };
  try {
    // Side by side: each process loads the CLI and the command catalog, which takes a while on its own.
    const started = await Promise.all(
      routers.map(async (router) => {
        const password = randomBytes(18).toString("base64url");
        const passwordFile = join(folder, `${router.name}.password`);
        await writeFile(passwordFile, password, { mode: 0o600 });
        const child = spawn(
          process.execPath,
          [
            join(PACKAGE_ROOT, "bin", "routerjobs.js"),
            ...["router", "simulate", "--api", "127.0.0.1:0", "--tls", "--user", DEVICE_USER],
            ...["--password-file", passwordFile, "--name", router.name],
            ...["--state-file", join(folder, `${router.name}.json`)],
          ],
          // A group of its own, so that stopping the demo stops the device whatever it started.
          { detached: true, stdio: ["ignore", "pipe", "pipe"] },
        );
        children.push(child);
        const ready = await readyLine(child, router.name);
        const port = Number(ready.address.slice(ready.address.lastIndexOf(":") + 1));
        const device: Device = {
          host: "127.0.0.1",
          port,
          user: DEVICE_USER,
          password,
          tls_fingerprint: ready.fingerprint,
        };
        return [router.id, device] as const;
      }),
    );
    const devices = new Map(started);
    return { devices, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The JSON line `router simulate` prints once it listens; its error output if it exits first. */
async function readyLine(
  child: ChildProcess,
  name: string,
): Promise<{ address: string; fingerprint: string }> {
  let errors = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    errors += chunk;
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = await Promise.race([
    once(lines, "line") as Promise<[string]>,
    once(child, "exit").then(([code]) => {
      throw new EnvironmentError(
        `the demo's router ${name} (router simulate) exited with ${code}: ${errors.trim()}`,
      );
    }),
  ]);
  lines.close();
  return JSON.parse(line) as { address: string; fingerprint: string };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  try {
    process.kill(-(child.pid as number), "SIGTERM");
  } catch {
    return; // already gone
  }
  await exited;
}
