/**
 * A simulated RouterOS device as its own process (`routerjobs router simulate` from the built CLI), in a process
 * group of its own so that a test can `kill -9` it whole, as a power cut would, and start it again on the same
 * port and state file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { RouterApiClient } from "../../src/routeros/api/client.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface DeviceProcessOptions {
  readonly user: string;
  readonly password: string;
  readonly passwordFile: string;
  readonly stateFile: string;
  /** 0 picks a free port; a restart passes the port the first start got. */
  readonly port: number;
  /**
   * Also serve REST on this port (0: a free one), with the certificate kept in `certificateFile` so that a pin
   * holds across a restart, as a router's does.
   */
  readonly rest?: { readonly port: number; readonly certificateFile: string };
  /** Also serve the console over SSH on this port (0: a free one); the host key stays beside the state file. */
  readonly ssh?: { readonly port: number };
}

export interface DeviceProcess {
  readonly port: number;
  /** The REST port and the certificate's fingerprint, with `rest`. */
  readonly rest?: { readonly port: number; readonly fingerprint: string };
  /** The SSH port and the host key's fingerprint (`SHA256:...`), with `ssh`. */
  readonly ssh?: { readonly port: number; readonly fingerprint: string };
  readonly child: ChildProcess;
  /** SIGKILL to the whole process group; resolves once the process is gone. */
  kill(): Promise<void>;
  /** A plain-TCP API session to the device, for the test's own looks at its state. */
  session(): Promise<RouterApiClient>;
}

/** `routerjobs router simulate` with `args`, started: the process and the JSON line it prints once it listens. */
export async function startSimulate<Ready = SimulateReady>(
  args: readonly string[],
  options: { readonly detached?: boolean } = {},
): Promise<{ readonly child: ChildProcess; readonly ready: Ready; readonly exited: Promise<unknown[]> }> {
  const child = spawn(process.execPath, ["bin/routerjobs.js", "router", "simulate", ...args], {
    cwd: ROOT,
    detached: options.detached ?? false,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await Promise.race([
    once(lines, "line") as Promise<[string]>,
    exited.then(([code]) => {
      throw new Error(`router simulate exited with ${code} before it listened`);
    }),
  ]);
  lines.close();
  return { child, ready: JSON.parse(first[0]) as Ready, exited };
}

/** The ready line's fields every front end prints. */
export interface SimulateReady {
  readonly address: string;
  readonly tls?: boolean;
  readonly fingerprint?: string;
  readonly certificate?: string;
  readonly rest?: string;
  readonly ssh?: { readonly address: string; readonly hostKey: string; readonly fingerprint: string };
}

export async function startDeviceProcess(options: DeviceProcessOptions): Promise<DeviceProcess> {
  const { child, ready, exited } = await startSimulate(
    [
      "--api",
      `127.0.0.1:${options.port}`,
      "--user",
      options.user,
      "--password-file",
      options.passwordFile,
      "--state-file",
      options.stateFile,
      "--name",
      "crash-test",
      ...(options.rest
        ? ["--rest", `127.0.0.1:${options.rest.port}`, "--certificate-file", options.rest.certificateFile]
        : []),
      ...(options.ssh ? ["--ssh", `127.0.0.1:${options.ssh.port}`] : []),
    ],
    { detached: true },
  );
  const portOf = (address: string) => Number(address.slice(address.lastIndexOf(":") + 1));
  const port = portOf(ready.address);
  const rest =
    ready.rest && ready.fingerprint
      ? { port: portOf(ready.rest), fingerprint: ready.fingerprint }
      : undefined;
  const ssh = ready.ssh ? { port: portOf(ready.ssh.address), fingerprint: ready.ssh.fingerprint } : undefined;
  let gone = false;
  return {
    port,
    ...(rest ? { rest } : {}),
    ...(ssh ? { ssh } : {}),
    child,
    async kill() {
      if (gone) return;
      gone = true;
      if (child.exitCode === null && child.signalCode === null)
        process.kill(-(child.pid as number), "SIGKILL");
      await exited;
    },
    session: () =>
      RouterApiClient.connect({
        host: "127.0.0.1",
        port,
        user: options.user,
        password: options.password,
        allowPlaintext: true,
      }),
  };
}
