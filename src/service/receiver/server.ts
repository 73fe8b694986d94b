import { mkdir, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseSigningSecret } from "../../contract/signing-secret.js";
import { UsageError } from "../../errors.js";
import type { LoggerOptions } from "../../platform/http/server-logging.js";
import type { ServerTimeouts } from "../../platform/http/server-timeouts.js";
import { certificateHosts, loadOrCreateLocalTls, WILDCARD_HOSTS } from "../../platform/tls/certificates.js";
import { isPostgresUrl, openDatabase } from "../database/database.js";
import { reportStorageFull, StorageFullReport } from "../database/storage-full.js";
import { buildReceiverApp } from "./app.js";
import { RECEIVER_FILES } from "./files.js";
import { NotificationStore } from "./notification-store.js";
import { listenForWakeups } from "./pg-listener.js";
import { loadOrCreateSecretFile, validatePathSecret } from "./secrets.js";
import { Wakeups } from "./wakeups.js";

/** A NOTIFY lost while the LISTEN connection reconnects is caught up by a re-read this often. */
const POSTGRES_RECHECK_MS = 2000;

export interface ReceiverOptions {
  /** Holds the PGlite database, generated secrets, the reader token and the local CA. */
  readonly dataDir: string;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** 0 picks a free port. @default 8444 */
  readonly port?: number;
  /** `postgres://...` to share state between instances. @default a PGlite database in `<dataDir>/receiver-db` */
  readonly database?: string;
  /** PEM certificate and key. @default a local CA and certificate kept in `dataDir` */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Path secrets accepted in `/notify/<secret>`; the first one goes into `notifyUrl`. @default generated, kept in `dataDir` */
  readonly pathSecrets?: readonly string[];
  /** `whsec_...` secrets; when present, every notification must carry a valid Standard Webhooks signature. */
  readonly signingSecrets?: readonly string[];
  /** @default generated, kept in `<dataDir>/reader-token` */
  readonly readerToken?: string;
  /** Base URL the service reaches this receiver at (a load balancer). @default the listening address */
  readonly publicUrl?: string;
  readonly bodyLimitBytes?: number;
  /** pino options (level, stream), true for info on stdout. @default false */
  readonly logger?: boolean | LoggerOptions;
  /** Socket deadlines against slow and idle clients. @default 30 s per request, 10 s for headers */
  readonly timeouts?: Partial<ServerTimeouts>;
  /** Wakes the long-poll waiters; a test passes its own to see when a waiter waits. @default a new Wakeups */
  readonly wakeups?: Wakeups;
}

export interface RunningReceiver {
  /** Base URL of this instance (wait API, health). */
  readonly url: string;
  /** The URL to give the service as `notify_url`. It holds the path secret: treat it as a secret. */
  readonly notifyUrl: string;
  readonly readerToken: string;
  /** Set when the reader token was generated or read from the data directory. */
  readonly readerTokenFile: string | undefined;
  /** Set when the receiver uses its generated local CA; clients must trust this file. */
  readonly caFile: string | undefined;
  readonly databaseKind: "pglite" | "postgres";
  /** Stops taking requests, lets in-flight ones finish (long polls answer at once), then closes storage. */
  close(): Promise<void>;
  /**
   * Resolves if this process loses its PGlite database (its data directory's lock, which another process may
   * hold now, or the database's thread): it already refuses every query and the receiver has closed itself.
   */
  readonly databaseLost: Promise<Error>;
}

export async function startReceiver(options: ReceiverOptions): Promise<RunningReceiver> {
  const signingKeys = (options.signingSecrets ?? []).map((secret, index) => {
    try {
      return parseSigningSecret(secret);
    } catch (error) {
      throw new UsageError(`signing secret ${index + 1}: ${(error as Error).message}`);
    }
  });
  const pathSecrets = options.pathSecrets?.length
    ? options.pathSecrets.map((secret) => validatePathSecret(secret, "receiver secret"))
    : [await loadOrCreateSecretFile(join(options.dataDir, RECEIVER_FILES.pathSecret))];
  const readerTokenFile = join(options.dataDir, RECEIVER_FILES.readerToken);
  const readerToken = options.readerToken ?? (await loadOrCreateSecretFile(readerTokenFile));
  const host = options.host ?? "127.0.0.1";
  const local = options.tls
    ? undefined
    : await loadOrCreateLocalTls(options.dataDir, certificateHosts(options.host, options.publicUrl));
  const tls = options.tls ?? (local as { cert: string; key: string });

  await mkdir(options.dataDir, { recursive: true });
  const location = options.database ?? join(options.dataDir, RECEIVER_FILES.database);
  let reportLost: (error: Error) => void = () => {};
  const databaseLost = new Promise<Error>((resolve) => {
    reportLost = resolve;
  });
  let closeOnLoss: () => void = () => {};
  const storageFull = new StorageFullReport();
  const db = reportStorageFull(
    await openDatabase({
      location,
      onLost: (error) => {
        reportLost(error);
        closeOnLoss();
      },
    }),
    storageFull,
  );
  const wakeups = options.wakeups ?? new Wakeups();
  let listener: { close(): Promise<void> } | undefined;
  let app: ReturnType<typeof buildReceiverApp> | undefined;
  try {
    const store = await NotificationStore.open(db);
    if (isPostgresUrl(location)) listener = await listenForWakeups(location, wakeups);
    app = buildReceiverApp({
      store,
      wakeups,
      signingKeys,
      pathSecrets,
      readerTokens: [readerToken],
      tls,
      storageFull,
      ...(isPostgresUrl(location) ? { recheckMs: POSTGRES_RECHECK_MS } : {}),
      ...(options.bodyLimitBytes ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    });
    app.addHook("preClose", async () => wakeups.close());
    await app.listen({ host, port: options.port ?? 8444 });
  } catch (error) {
    await app?.close();
    await listener?.close();
    await db.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  // A wildcard address is where we listen, not where anyone connects.
  const reachable = WILDCARD_HOSTS.has(host) ? "127.0.0.1" : host;
  const url = `https://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
  const notifyUrl = `${(options.publicUrl ?? url).replace(/\/+$/, "")}/notify/${pathSecrets[0]}`;
  await writeFile(join(options.dataDir, RECEIVER_FILES.state), `${JSON.stringify({ url }, null, 2)}\n`);

  const server = app;
  closeOnLoss = () => {
    server.log.fatal("database lost: the receiver stops");
    void server.close();
  };
  return {
    url,
    notifyUrl,
    readerToken,
    readerTokenFile: options.readerToken ? undefined : readerTokenFile,
    caFile: local?.caFile,
    databaseKind: db.kind,
    databaseLost,
    async close() {
      await server.close();
      await listener?.close();
      await db.close();
    },
  };
}
