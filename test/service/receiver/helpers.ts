import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import type { KnownJobStatus } from "../../../src/contract/job.js";
import { parseSigningSecret, webhookSignature as signWebhook } from "../../../src/contract/signing-secret.js";
import { formatTimestamp } from "../../../src/contract/time.js";
import { type Database, openDatabase } from "../../../src/service/database/database.js";
import { RECEIVER_FILES } from "../../../src/service/receiver/files.js";
import { NotificationStore } from "../../../src/service/receiver/notification-store.js";
import {
  type ReceiverOptions,
  type RunningReceiver,
  startReceiver,
} from "../../../src/service/receiver/server.js";
import { Wakeups, type Watch } from "../../../src/service/receiver/wakeups.js";
import { waitFor } from "../../helpers/wait-for.js";

export const SIGNING_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

/**
 * A receiver data directory whose PGlite database is already initialised. A fresh PGlite initdb takes 8-20 s
 * on a busy 2-core machine; copying a closed one takes well under a second and gives the same database.
 */
/** A receiver's store on a PGlite in a fresh folder, for tests below the HTTP layer; `close` removes it all. */
export async function openTestStore(): Promise<{
  db: Database;
  store: NotificationStore;
  close(): Promise<void>;
}> {
  const dir = await tempDir();
  const db = await openDatabase({ location: join(dir.path, RECEIVER_FILES.database) });
  const store = await NotificationStore.open(db);
  return {
    db,
    store,
    close: async () => {
      await db.close();
      await dir.remove();
    },
  };
}

export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "routerjobs-receiver-"));
  await cp(await pgliteTemplate(), join(path, RECEIVER_FILES.database), { recursive: true });
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

async function pgliteTemplate(): Promise<string> {
  const { version } = JSON.parse(
    await readFile("node_modules/@electric-sql/pglite/package.json", "utf8"),
  ) as { version: string };
  const template = join(tmpdir(), `routerjobs-pglite-template-${version}`);
  if (existsSync(template)) return template;
  // Built aside and renamed into place, so a concurrent test file never copies a half-written template.
  const building = await mkdtemp(join(tmpdir(), "routerjobs-pglite-building-"));
  const db = await openDatabase({ location: building });
  await db.close();
  await rename(building, template).catch(async () => rm(building, { recursive: true, force: true }));
  return template;
}

/** A receiver on a free loopback port with its own data dir, plus an HTTPS sender that trusts its local CA. */
export async function startTestReceiver(
  dataDir: string,
  options: Partial<ReceiverOptions> = {},
): Promise<RunningReceiver & { sender: Sender }> {
  const receiver = await startReceiver({ dataDir, port: 0, ...options });
  const ca = await readFile(receiver.caFile as string, "utf8");
  const sender = new Sender(receiver.notifyUrl, ca);
  return {
    ...receiver,
    sender,
    async close() {
      // The receiver first: it releases long polls that the sender's connections would otherwise wait on.
      await receiver.close();
      await sender.close();
    },
  };
}

export interface Job {
  readonly job_id: string;
  readonly idempotency_key: string;
  readonly router_id: string;
}

export function newJob(routerId: string = randomUUID()): Job {
  return { job_id: randomUUID(), idempotency_key: randomUUID(), router_id: routerId };
}

/** A notification payload as the service posts it, for `job` in `status`. */
export function notificationFor(job: Job, status: KnownJobStatus, extra: Record<string, unknown> = {}) {
  const now = formatTimestamp(new Date());
  return {
    ...job,
    customer_id: "6f1c5d0e-7a43-4a55-9a0e-3c1f2b7d9e10",
    description: "add address",
    express_execute: true,
    needs_acknowledgement: true,
    make_backup: false,
    seq_id: 1,
    started_at: ["running", "completed", "failed"].includes(status) ? now : null,
    completed_at: status === "completed" ? now : null,
    failed_at: status === "failed" ? now : null,
    deleted_at: status === "deleted" ? now : null,
    error: status === "failed" ? "failure: already have such address (line 1)" : null,
    status,
    ...extra,
  };
}

/** A response body of the receiver; tests compare `data` with toMatchObject. */
export interface ResponseBody {
  readonly status: "success" | "error";
  readonly data?: unknown;
  readonly error?: {
    readonly code: string;
    readonly message: string;
    readonly details?: readonly { field: string; message: string }[];
  };
}

export interface SendOptions {
  readonly url?: string;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

/** Posts notifications over real HTTPS, as the service does. */
export class Sender {
  readonly dispatcher: Agent;

  constructor(
    readonly notifyUrl: string,
    readonly ca: string,
  ) {
    this.dispatcher = new Agent({ connect: { ca } });
  }

  async post(
    body: string | Buffer | object,
    options: SendOptions = {},
  ): Promise<{ status: number; body: ResponseBody }> {
    const raw = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const response = await request(options.url ?? this.notifyUrl, {
      method: "POST",
      dispatcher: this.dispatcher,
      headers: { "content-type": options.contentType ?? "application/json", ...options.headers },
      body: raw,
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? JSON.parse(text) : undefined };
  }

  /** Signs as a Standard Webhooks sender would; `timestampSeconds` lets a test forge an old or future one. */
  signed(payload: object, timestampSeconds = Math.floor(Date.now() / 1000), secret = SIGNING_SECRET) {
    const body = JSON.stringify(payload);
    const id = `msg_${randomUUID()}`;
    const signature = signWebhook(parseSigningSecret(secret), id, timestampSeconds, Buffer.from(body));
    return {
      body,
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(timestampSeconds),
        "webhook-signature": signature,
      },
    };
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** GET on the wait API with a reader token. */
export async function getJobs(
  receiver: RunningReceiver & { sender: Sender },
  query: string,
  token = receiver.readerToken,
): Promise<{ status: number; body: ResponseBody; headers: Record<string, unknown> }> {
  const response = await request(`${receiver.url}/v1/jobs?${query}`, {
    dispatcher: receiver.sender.dispatcher,
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    body: text ? JSON.parse(text) : undefined,
    headers: response.headers,
  };
}

/**
 * The receiver's wake-ups, as a test sees them: how often a long poll watched a job and blocked waiting for
 * it, and which wakes came from another instance (PostgreSQL NOTIFY carries the name only). Lets a test post
 * a notification once a waiter is known to wait, instead of sleeping and hoping it does.
 */
export class ObservedWakeups extends Wakeups {
  private readonly watches = new Map<string, number>();
  private readonly waits = new Map<string, number>();
  private readonly remoteWakes = new Map<string, number>();

  override watch(name: string): Watch {
    this.watches.set(name, this.watchCount(name) + 1);
    const watch = super.watch(name);
    const next = watch.next.bind(watch);
    watch.next = (timeoutMs, signal) => {
      this.waits.set(name, this.waitCount(name) + 1);
      return next(timeoutMs, signal);
    };
    return watch;
  }

  override notify(name: string, job?: Parameters<Wakeups["notify"]>[1]): void {
    if (job === undefined) this.remoteWakes.set(name, this.remoteWakeCount(name) + 1);
    super.notify(name, job);
  }

  /** Long polls that watched `name` (one per request that asked to wait). */
  watchCount(name: string): number {
    return this.watches.get(name) ?? 0;
  }

  /** Times a long poll blocked waiting for a wake of `name`. */
  waitCount(name: string): number {
    return this.waits.get(name) ?? 0;
  }

  /** Wakes of `name` that came from another instance through PostgreSQL NOTIFY. */
  remoteWakeCount(name: string): number {
    return this.remoteWakes.get(name) ?? 0;
  }

  /** Resolves once a long poll for `name` has blocked waiting `count` times in all. */
  async waiting(name: string, count = 1): Promise<void> {
    await waitFor(() => this.waitCount(name) >= count, {
      what: `a long poll to wait for ${name} (${count} time(s))`,
      detail: () => `waited ${this.waitCount(name)} time(s)`,
    });
  }
}
