import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
// undici's parts, not its index (src/http/request.ts says why): the index also reads the global `Headers`,
// which makes Node load the undici it bundles for fetch, 745 KB of source that a service kept for nothing.
import request from "undici/lib/api/api-request.js";
import Agent from "undici/lib/dispatcher/agent.js";
import { fullJitterMs } from "../http/backoff.js";
import type { Database } from "../store/database.js";
import { GroupCommit } from "../store/group-commit.js";
import type { ServiceConfig } from "./config.js";
import { DestinationGate, destinationOf } from "./destination-gate.js";
import { literalAddress, type NotifyDestinations, notifyDestinations } from "./notify-destinations.js";
import { signedHeaders } from "./signing.js";
import {
  leaseNotifications,
  markDelivered,
  markFailed,
  type OutboxRow,
  releaseLeases,
} from "./store/outbox.js";

type NotifierConfig = Pick<
  ServiceConfig,
  | "notifyCa"
  | "notifyRetryBaseMs"
  | "notifyRetryMaxMs"
  | "notifyGiveUpMs"
  | "notifyTimeoutMs"
  | "notifyConcurrency"
  | "notifyAllow"
>;

/**
 * Delivers the outbox: at least once, per job in state order, several jobs in parallel, retried with full-jitter
 * exponential backoff until `notifyGiveUpMs` after the state change. The outbox is in the database, so a
 * restart loses nothing; a lease (not a transaction) marks a notification in flight.
 *
 * Under load the database, not the network, is the cost: acknowledgements are written in groups, and the
 * outbox is read again once half of the slots are free rather than after every delivery.
 */
export class Notifier {
  private readonly dispatcher: Agent;
  /** Where notifications may go; the submission routes check a literal notify_url with the same rules. */
  readonly destinations: NotifyDestinations;
  private readonly gate: DestinationGate;
  private readonly pollMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly acknowledged: GroupCommit<string, void>;
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly config: NotifierConfig,
    private readonly log: (message: string, fields?: object) => void = () => {},
  ) {
    this.destinations = notifyDestinations(config.notifyAllow);
    // An open circuit tries the destination again after as long as one attempt may take, then after twice
    // that, up to six times: a black hole costs at most one slot per wait, and a receiver that comes back is
    // heard within a minute at the defaults.
    this.gate = new DestinationGate({
      openMs: config.notifyTimeoutMs,
      maxOpenMs: 6 * config.notifyTimeoutMs,
    });
    this.dispatcher = new Agent({
      connections: 8,
      // Connecting (the TLS handshake included) is part of the POST's time: a receiver that accepts and then
      // never answers would otherwise hold a delivery slot for undici's own 10 s, whatever notifyTimeoutMs says.
      connect: {
        timeout: config.notifyTimeoutMs,
        // Every address a host name resolves to is checked where the connection is made (no DNS rebinding).
        lookup: this.destinations.lookup,
        ...(config.notifyCa ? { ca: trustedCas(config.notifyCa) } : {}),
      },
    });
    this.pollMs = Math.max(20, Math.min(250, config.notifyRetryBaseMs));
    this.acknowledged = new GroupCommit(async (ids) => {
      await markDelivered(this.db, ids, new Date());
      return ids.map(() => undefined);
    });
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Looks for deliverable notifications now (called after a state change commits). */
  wake(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async pump(): Promise<void> {
    const free = this.config.notifyConcurrency - this.inFlight.size;
    if (free <= 0) return;
    let rows: OutboxRow[];
    try {
      rows = await leaseNotifications(
        this.db,
        new Date(),
        this.config.notifyTimeoutMs + 5000,
        free,
        this.gate.closed(),
      );
      // One lease can hold more rows of a destination than it has room for: those go back untouched.
      const room = new Map<string, number>();
      const kept: OutboxRow[] = [];
      const back: string[] = [];
      for (const row of rows) {
        const destination = destinationOf(row.url);
        const left = room.get(destination) ?? this.gate.room(destination);
        room.set(destination, left - 1);
        if (left > 0) kept.push(row);
        else back.push(row.id);
      }
      await releaseLeases(this.db, back);
      rows = kept;
    } catch (error) {
      if (!this.stopped) this.log("notifier: cannot read the outbox", { err: error });
      return;
    }
    for (const row of rows) {
      const destination = destinationOf(row.url);
      this.gate.start(destination);
      const delivery: Promise<void> = this.deliver(row)
        .then(
          (outcome) => this.gate.finish(destination, outcome),
          () => this.gate.finish(destination, "failed"),
        )
        .finally(() => {
          this.inFlight.delete(delivery);
          if (this.inFlight.size <= this.config.notifyConcurrency / 2) this.wake();
        });
      this.inFlight.add(delivery);
    }
  }

  /** One delivery attempt, and how it ended for the destination gate. */
  private async deliver(row: OutboxRow): Promise<"delivered" | "failed" | "timed-out"> {
    const body = JSON.stringify(row.payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "routerjobs-service",
      ...(row.signing_secret
        ? signedHeaders(row.signing_secret, `msg_${row.id}`, Math.floor(Date.now() / 1000), body)
        : {}),
    };
    let failure: string;
    let timedOut = false;
    try {
      // A literal address needs no lookup, so it is checked here.
      const literal = literalAddress(row.url);
      if (literal) this.destinations.check(literal);
      const url = new URL(row.url);
      const response = await request.call(this.dispatcher, {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        body,
        headers,
        headersTimeout: this.config.notifyTimeoutMs,
        bodyTimeout: this.config.notifyTimeoutMs,
      });
      await response.body.dump();
      if (response.statusCode >= 200 && response.statusCode < 300) {
        await this.acknowledged.submit(row.id);
        return "delivered";
      }
      failure = `HTTP ${response.statusCode}`;
    } catch (error) {
      failure = (error as Error).message || String(error);
      timedOut = TIMEOUT_CODES.has(String((error as { code?: unknown }).code));
    }
    const now = Date.now();
    // row.attempts counts this attempt: after the first one fails, the first retry waits up to the base.
    const next =
      now + fullJitterMs(row.attempts, this.config.notifyRetryBaseMs, this.config.notifyRetryMaxMs);
    const giveUp = next > row.created_at.getTime() + this.config.notifyGiveUpMs;
    if (giveUp) this.log("notifier: giving up", { outbox: row.id, job: row.job_id, error: failure });
    await markFailed(this.db, row.id, failure, new Date(now), giveUp ? undefined : new Date(next)).catch(
      () => {},
    );
    return timedOut ? "timed-out" : "failed";
  }

  /** Stops polling and waits for deliveries in flight (their leases expire if the process dies instead). */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
    await this.dispatcher.close();
  }
}

/** undici's errors for a receiver that did not connect, answer or finish its answer in time. */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** Passing `ca` replaces Node's store, so the roots and NODE_EXTRA_CA_CERTS are added back explicitly. */
function trustedCas(extra: string): string[] {
  const cas = [...rootCertificates, extra];
  const envFile = process.env.NODE_EXTRA_CA_CERTS;
  if (envFile) {
    try {
      cas.push(readFileSync(envFile, "utf8"));
    } catch {
      // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS; do the same by ignoring it.
    }
  }
  return cas;
}
