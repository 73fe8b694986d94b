import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Device } from "../contract/device.js";
import { formatDuration, type RateLimit } from "../contract/duration.js";
import type { RouterBackend } from "../contract/routers/router-backend.js";
import { SimulatedBackend } from "../routeros/simulator/index.js";
import type { ServicePath } from "../routeros/simulator/reachability/index.js";
import { newToken } from "../service/auth/directory.js";
import { resolveConfig } from "../service/config.js";
import { type RunningReceiver, startReceiver } from "../service/receiver/server.js";
import { DeviceBackend } from "../service/routers/device-backend.js";
import { MixedBackend } from "../service/routers/mixed-backend.js";
import { type RunningService, startService } from "../service/server.js";

/** The repository (or installed package) root: where `bin/routerjobs.js` and `examples/` are. */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface LocalStackOptions {
  /** Holds the service's and the receiver's data. */
  readonly dir: string;
  /** A router with a `device` is driven over the RouterOS API (router-processes.ts); the rest are simulated. */
  readonly routers: readonly { readonly id: string; readonly name: string; readonly device?: Device }[];
  /** @default 1 s */
  readonly tickMs?: number;
  /** The service's limit per key. @default the spec's 60/1m */
  readonly rateLimit?: RateLimit;
  /** Start a receiver and point notifications at it. @default true */
  readonly receiver?: boolean;
  /** How long a simulated router stays offline after a reboot (a restore reboots it). @default 30 s */
  readonly rebootOfflineMs?: number;
  /** The simulated routers' clock (their scheduler runs on it). @default the system clock */
  readonly routerClock?: () => Date;
  /**
   * How the service reaches the simulated routers: with it, a router whose configuration cuts that path stops
   * answering (docs/safe-change.md). @default - every simulated router is reached
   */
  readonly reach?: ServicePath;
}

export interface LocalStack {
  readonly service: RunningService;
  readonly receiver: RunningReceiver | undefined;
  /** The simulated routers themselves, for tools and tests that look at a router or move its clock. */
  readonly simulated: SimulatedBackend;
  /** The seeded team's API token: hand it to processes through the environment only. */
  readonly token: string;
  /** What terraform and its provisioners (`routerjobs apply`) need to deploy against this stack. */
  readonly env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/**
 * The service with simulated routers, and the notification receiver, on loopback with generated TLS, seeded
 * with one team, one token and the given routers: what the demo and the deploy benchmarks run against.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const { dir } = options;
  // The receiver first: the service must trust its certificate to deliver notifications.
  const receiver =
    options.receiver === false
      ? undefined
      : await startReceiver({ dataDir: join(dir, "receiver"), host: "127.0.0.1", port: 0, logger: false });
  try {
    const simulated = new SimulatedBackend({
      seed: 42,
      commandLatencyMs: 20,
      ...(options.rebootOfflineMs === undefined ? {} : { rebootOfflineMs: options.rebootOfflineMs }),
      ...(options.routerClock ? { now: options.routerClock } : {}),
      ...(options.reach ? { reach: options.reach } : {}),
    });
    const backend: RouterBackend = options.routers.some((router) => router.device)
      ? new MixedBackend(simulated, new DeviceBackend())
      : simulated;
    const teamId = randomUUID();
    const token = newToken(teamId);
    const service = await startService({
      config: resolveConfig({
        database: join(dir, "service"),
        dataDir: join(dir, "service"),
        tickMs: options.tickMs ?? 1000,
        ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
        ...(receiver?.caFile ? { notifyCa: await readFile(receiver.caFile, "utf8") } : {}),
        // The demo's receiver listens on loopback, which a service refuses by default.
        notifyAllow: ["127.0.0.0/8", "::1"],
      }),
      backend,
      host: "127.0.0.1",
      port: 0,
      tls: "generate",
      logger: false,
      seed: {
        teams: [
          {
            id: teamId,
            // What the portal's header shows for the demo's team.
            name: "demo team",
            customer_id: randomUUID(),
            tokens: [token],
            routers: options.routers.map(({ id, name, device }) => ({
              id,
              name,
              ...(device ? { device } : {}),
            })),
          },
        ],
      },
    });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TF_IN_AUTOMATION: "1",
      CHECKPOINT_DISABLE: "1",
      ROUTERJOBS_CLI: `${process.execPath} ${join(PACKAGE_ROOT, "bin", "routerjobs.js")}`,
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: token,
      ROUTERJOBS_CA_FILE: service.caFile ?? "",
      // The budget and the apply journal of these deploys stay with the stack, apart from the user's own.
      ROUTERJOBS_STATE_DIR: join(dir, "state"),
      ...(options.rateLimit
        ? {
            ROUTERJOBS_RATE_LIMIT: `${options.rateLimit.count}/${formatDuration(options.rateLimit.windowMs)}`,
          }
        : {}),
      ...(receiver
        ? {
            ROUTERJOBS_RECEIVER_URL: receiver.url,
            ROUTERJOBS_RECEIVER_TOKEN_FILE: receiver.readerTokenFile ?? "",
            ROUTERJOBS_RECEIVER_CA_FILE: receiver.caFile ?? "",
            ROUTERJOBS_NOTIFY_URL: receiver.notifyUrl,
          }
        : {}),
    };
    return {
      service,
      receiver,
      simulated,
      token,
      env,
      close: async () => {
        await service.close();
        await receiver?.close();
      },
    };
  } catch (error) {
    await receiver?.close();
    throw error;
  }
}
