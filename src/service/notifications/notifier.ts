import { readFileSync } from "node:fs";
import { createSecureContext, rootCertificates } from "node:tls";
// undici's parts, not its index (src/client/http/request.ts says why): the index also reads the global `Headers`,
// which makes Node load the undici it bundles for fetch: a second undici that a service kept for nothing.
import request from "undici/lib/api/api-request.js";
import Agent from "undici/lib/dispatcher/agent.js";
import { fullJitterMs } from "../../platform/backoff.js";
import type { Database } from "../database/database.js";
import { GroupCommit } from "../database/group-commit.js";
import { DestinationGate, destinationOf } from "./destination-gate.js";
import { literalAddress, type NotifyDestinations, notifyDestinations } from "./notify-destinations.js";
import type { NotifySettings } from "./notify-settings.js";
import {
  deferDestination,
  type Lease,
  type LeaseLimits,
  leaseNotifications,
  markDelivered,
  markFailed,
  type OutboxRow,
  releaseAllLeases,
  releaseLeases,
} from "./outbox.js";
import { signedHeaders } from "./signing.js";

type NotifierConfig = NotifySettings;

/** What the notifier waits with: a timer on its clock and the back-off's draw (tests pass a manual clock's). */
export interface NotifierTimers {
  /** Calls `fire` once `ms` have passed on the notifier's clock; the function returned cancels it. */
  readonly after: (ms: number, fire: () => void) => () => void;
  /** A number in [0, 1), for the retries' full jitter. */
  readonly random: () => number;
}

const REAL_TIMERS: NotifierTimers = {
  after: (ms, fire) => {
    const timer = setTimeout(fire, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
  random: Math.random,
};

/**
 * Delivers the outbox: at least once, per job in state order, several jobs in parallel, retried with full-jitter
 * exponential backoff until `notifyGiveUpMs` after the state change. The outbox is in the database, so a
 * restart loses nothing; a lease (not a transaction) marks a notification in flight.
 *
 * Under load the database, not the network, is the cost. Acknowledgements are written in groups. A lease takes
 * rows ahead of a destination's free slots, and they start from memory as its slots free (`allowance`). The
 * outbox is read only when something may be deliverable: when a state change queues a notification for a
 * destination that takes more; when a delivery is acknowledged or abandoned (the job's next state is due), or
 * ends while the last round left deliverable rows behind, at once if its destination is short of leased rows,
 * else within `pollMs`; and at the time the store says the next retry comes due (a timer, never sooner than
 * `pollMs` after the round before). A failed delivery reschedules its row with its back-off and wakes nothing:
 * a receiver that is down costs the store its retries, not a round per failure. When a circuit
 * opens, the destination's due rows wait in the store until it half-opens.
 *
 * Slots are shared across teams: a team takes one of the last `reserve` free slots only while it holds none, so
 * one team's receivers, black holes on any number of ports among them, hold at most `notifyConcurrency -
 * reserve` slots and another team's notification finds one free. Per destination the gate keeps its own cap.
 */
export class Notifier {
  private readonly dispatcher: Agent;
  /** Where notifications may go; the submission routes check a literal notify_url with the same rules. */
  readonly destinations: NotifyDestinations;
  private readonly gate: DestinationGate;
  /** The shortest time between two rounds that the timer starts (retries coming due one after the other). */
  private readonly pollMs: number;
  /** Slots kept for teams that hold none: a quarter of them, at least one. */
  private readonly reserve: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries in flight per team (a team with none is not listed). */
  private readonly teamsInFlight = new Map<string, number>();
  /** Leased rows waiting for a slot of their destination (see leaseLimits). */
  private readonly waiting = new Map<string, Waiting[]>();
  private waitingCount = 0;
  /** Long enough for a delivery started at once to end within it, and a few seconds more to wait for a slot. */
  private readonly leaseMs: number;
  private readonly acknowledged: GroupCommit<string, void>;
  /** The round the timer will start, and when (on the notifier's clock). */
  private timer: { readonly at: number; readonly cancel: () => void } | undefined;
  /** The last round left deliverable rows in the outbox (see `Lease.more`): a slot that frees may take one. */
  private moreDue = true;
  private lastRoundAt = Number.NEGATIVE_INFINITY;
  /** The round running now, if any: close waits for it, so that what it leases is given back too. */
  private pumping: Promise<void> | undefined;
  private again = false;
  private started = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly config: NotifierConfig,
    private readonly log: (message: string, fields?: object) => void = () => {},
    /** When leases are taken and end, and retries are due (tests move it by hand). */
    private readonly clock: () => number = Date.now,
    private readonly timers: NotifierTimers = REAL_TIMERS,
  ) {
    this.destinations = notifyDestinations(config.notifyAllow);
    // An open circuit tries the destination again after as long as one attempt may take, then after twice
    // that, up to six times: a black hole costs at most one slot per wait, and a receiver that comes back is
    // heard within a minute at the defaults.
    this.gate = new DestinationGate({
      openMs: config.notifyTimeoutMs,
      maxOpenMs: 6 * config.notifyTimeoutMs,
      now: clock,
    });
    this.dispatcher = new Agent({
      connections: 8,
      // Connecting (the TLS handshake included) is part of the POST's time: a receiver that accepts and then
      // never answers would otherwise hold a delivery slot for undici's own 10 s, whatever notifyTimeoutMs says.
      connect: {
        timeout: config.notifyTimeoutMs,
        // Every address a host name resolves to is checked where the connection is made (no DNS rebinding).
        lookup: this.destinations.lookup,
        // One context for every connection: given as `ca`, Node parsed the ~140 roots and the extra CA again for
        // each TLS connection, on the event loop that every router's calls wait for (figures:
        // docs/performance.md).
        ...(config.notifyCa
          ? { secureContext: createSecureContext({ ca: trustedCas(config.notifyCa) }) }
          : {}),
      },
    });
    this.leaseMs = config.notifyTimeoutMs + 5000;
    this.pollMs = Math.max(20, Math.min(250, config.notifyRetryBaseMs));
    this.reserve = Math.max(1, Math.ceil(config.notifyConcurrency / 4));
    this.acknowledged = new GroupCommit(async (ids) => {
      await markDelivered(this.db, ids, new Date(this.clock()));
      return ids.map(() => undefined);
    });
  }

  /**
   * Starts delivering. `exclusive`: this is the only process on the database (PGlite), so the leases found are a
   * dead process's (a crash), deliveries in flight and rows it had leased ahead: given back at once rather than
   * after their lease, so that a restart sends them without waiting.
   */
  async start({ exclusive = false }: { exclusive?: boolean } = {}): Promise<void> {
    if (exclusive) {
      const released = await releaseAllLeases(this.db);
      if (released > 0)
        this.log("notifier: gave back the leases of a stopped process", { notifications: released });
    }
    this.started = true;
    this.wake();
  }

  /**
   * A committed state change queued a notification to `url` (none if null). Looks for it now, unless its
   * destination takes nothing more: the round that refills the destination finds it then, and a round costs the
   * database a scan, which a busy destination's every state change would otherwise pay.
   */
  queued(url: string | null | undefined): void {
    if (url && this.allowance(destinationOf(url)) > 0) this.wake();
  }

  /** Looks for deliverable notifications now (from `start` on: it gives back a dead process's leases first). */
  wake(): void {
    if (this.stopped || !this.started) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump()
      .catch((error: unknown) => this.log("notifier: a round failed", { err: error }))
      .finally(() => {
        this.pumping = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /**
   * Starts a round at `at` on the notifier's clock, or sooner if one is set for sooner already; never sooner than
   * `pollMs` after the last round, so that retries coming due one after the other share rounds.
   */
  private wakeAt(time: number): void {
    const at = Math.max(time, this.lastRoundAt + this.pollMs);
    if (this.stopped || (this.timer && this.timer.at <= at)) return;
    this.timer?.cancel();
    const timer = {
      at,
      cancel: this.timers.after(at - this.clock(), () => {
        if (this.timer === timer) this.timer = undefined;
        this.wake();
      }),
    };
    this.timer = timer;
  }

  private async pump(): Promise<void> {
    const now = this.clock();
    this.lastRoundAt = now;
    const released = this.startAllWaiting();
    const free = this.config.notifyConcurrency - this.inFlight.size;
    if (free <= 0) {
      // Asked for while every slot is taken: the next delivery to end looks.
      this.moreDue = true;
      return;
    }
    let lease: Lease;
    try {
      lease = await leaseNotifications(this.db, new Date(now), this.leaseMs, this.leaseLimits(free));
    } catch (error) {
      if (!this.stopped) this.log("notifier: cannot read the outbox", { err: error });
      this.wakeAt(this.clock() + this.pollMs);
      return;
    }
    // Rows given back this round are deliverable again, though the lease may have looked before they were.
    this.moreDue = lease.more || released > 0;
    const leased = new Set<string>();
    for (const row of lease.rows) {
      const destination = destinationOf(row.url);
      let queue = this.waiting.get(destination);
      if (!queue) {
        queue = [];
        this.waiting.set(destination, queue);
      }
      queue.push({ row, leasedUntil: now + this.leaseMs });
      this.waitingCount++;
      leased.add(destination);
    }
    for (const destination of leased) this.startWaiting(destination);
    this.scheduleNextRound(lease.nextDueAt?.getTime());
  }

  /**
   * The timer's next round: when the next retry is due, an open circuit half-opens, or a leased row would go
   * stale, whichever comes first, and at the latest after a lease's time, for what another instance left
   * behind (its leases run out, or it died before delivering what it queued).
   */
  private scheduleNextRound(nextDueAt: number | undefined): void {
    const times = [this.lastRoundAt + this.leaseMs];
    if (nextDueAt !== undefined) times.push(nextDueAt);
    const reopen = this.gate.nextReopenAt();
    if (reopen !== undefined) times.push(reopen);
    for (const queue of this.waiting.values()) {
      const first = queue[0];
      // The first moment releaseStale finds it stale.
      if (first) times.push(first.leasedUntil - this.config.notifyTimeoutMs - 1000 + 1);
    }
    this.wakeAt(Math.min(...times));
  }

  /** How many rows the next lease may take in all, of each destination it knows of, and of any other. */
  private leaseLimits(free: number): LeaseLimits {
    const perDestination = new Map<string, number>();
    for (const destination of new Set([...this.gate.known(), ...this.waiting.keys()])) {
      perDestination.set(destination, this.allowance(destination));
    }
    const closedTeams =
      free > this.reserve ? [] : [...this.teamsInFlight.keys()].filter((team) => !this.teamMayStart(team));
    return { limit: free, perDestination, otherwise: this.allowance(undefined), closedTeams };
  }

  /**
   * How many rows of `destination` a lease may take now (undefined: one it knows nothing of): what the gate has
   * room for, and while the destination answers in time, twice its slots more, to start the moment a slot
   * frees, without a round to the database. A destination is leased again only once fewer than its slots wait,
   * so that one lease serves several deliveries rather than one.
   */
  private allowance(destination: string | undefined): number {
    const slots = this.gate.perDestination;
    const prefetch = this.waitingCount < 2 * this.config.notifyConcurrency ? 2 * slots : 0;
    if (destination === undefined) return slots + prefetch;
    const waiting = this.waiting.get(destination)?.length ?? 0;
    if (waiting >= slots) return 0;
    const ahead = this.gate.healthy(destination) ? prefetch : 0;
    return Math.max(0, this.gate.room(destination) + ahead - waiting);
  }

  /** A free slot, and `team` either leaves the reserve to the others or holds no slot yet. */
  private teamMayStart(team: string): boolean {
    const free = this.config.notifyConcurrency - this.inFlight.size;
    return free > this.reserve || (free > 0 && !this.teamsInFlight.has(team));
  }

  /** Gives back what went stale (how many: returned), then starts what the slots now take, every destination's. */
  private startAllWaiting(): number {
    const released = this.releaseStale();
    for (const destination of [...this.waiting.keys()]) this.startWaiting(destination);
    return released;
  }

  /**
   * Starts the leased notifications of `destination` that the gate and their teams have room for, in the
   * order leased; one whose team may not start now lets the next one (another job's, maybe another team's) go.
   */
  private startWaiting(destination: string): void {
    const queue = this.waiting.get(destination);
    if (!queue) return;
    for (let index = 0; index < queue.length; ) {
      if (
        this.stopped ||
        this.gate.room(destination) <= 0 ||
        this.inFlight.size >= this.config.notifyConcurrency
      )
        break;
      const { row } = queue[index] as Waiting;
      if (!this.teamMayStart(row.team_id)) {
        index++;
        continue;
      }
      queue.splice(index, 1);
      this.waitingCount--;
      this.begin(destination, row);
    }
    if (queue.length === 0) this.waiting.delete(destination);
  }

  private begin(destination: string, row: OutboxRow): void {
    this.gate.start(destination);
    this.teamsInFlight.set(row.team_id, (this.teamsInFlight.get(row.team_id) ?? 0) + 1);
    let answered = false;
    const finish = (outcome: Outcome) => {
      if (answered) return;
      answered = true;
      const openUntil = this.gate.openUntil(destination);
      this.gate.finish(destination, outcome);
      if (this.gate.openUntil(destination) > openUntil) this.defer(destination);
      const held = (this.teamsInFlight.get(row.team_id) ?? 1) - 1;
      if (held > 0) this.teamsInFlight.set(row.team_id, held);
      else this.teamsInFlight.delete(row.team_id);
      this.startAllWaiting();
    };
    let settled: Settled = "rescheduled";
    const delivery: Promise<void> = this.deliver(row, finish)
      .then(
        (ended) => {
          settled = ended.settled;
          finish(ended.outcome);
        },
        () => finish("failed"),
      )
      .finally(() => {
        this.inFlight.delete(delivery);
        this.startAllWaiting();
        // Acknowledged or abandoned: the job's next state is due. Rescheduled: its retry has its own time, and
        // only rows the last round left behind may take the slot.
        if (settled === "done" || this.moreDue) this.refill(destination);
      });
    this.inFlight.add(delivery);
  }

  /**
   * `destination`'s circuit has opened: its due notifications wait in the store until it half-opens, out of
   * what each round reads (a black hole's backlog is otherwise read by every round of every team).
   */
  private defer(destination: string): void {
    const until = this.gate.openUntil(destination);
    void deferDestination(this.db, destination, new Date(until), new Date(this.clock()))
      .then(() => this.wakeAt(until))
      .catch((error: unknown) => {
        // Not moved, they stay due and are left out of each round until the circuit half-opens.
        if (!this.stopped) this.log("notifier: cannot defer an open circuit's notifications", { err: error });
      });
  }

  /**
   * A slot of `destination` has freed with deliverable rows possibly left: a round now when the destination is
   * short of leased rows, else one within `pollMs` (its leased rows keep its slots busy meanwhile). Not waiting
   * for half of all slots to be free: another team's receivers that never answer may hold them for their
   * whole timeout, and each state of this destination's jobs would wait `pollMs` for its round.
   */
  private refill(destination: string): void {
    const short = (this.waiting.get(destination)?.length ?? 0) < this.gate.perDestination;
    if (short) this.wake();
    else this.wakeAt(this.clock() + this.pollMs);
  }

  /**
   * Gives back leased rows that can no longer start in time: a delivery must end within its lease, or another
   * worker may lease the row again while it runs. Rows of a slow or stuck destination end up here.
   */
  private releaseStale(): number {
    const latest = this.clock() + this.config.notifyTimeoutMs + 1000;
    const stale: string[] = [];
    for (const [destination, queue] of this.waiting) {
      while (queue.length > 0 && (queue[0] as Waiting).leasedUntil < latest) {
        stale.push((queue.shift() as Waiting).row.id);
        this.waitingCount--;
      }
      if (queue.length === 0) this.waiting.delete(destination);
    }
    if (stale.length > 0) {
      // Given back, they are deliverable again: a round after this one may lease them.
      this.moreDue = true;
      void releaseLeases(this.db, stale).catch((error: unknown) => {
        // Not given back, they wait out their lease and are leased again after it: nothing is lost.
        if (!this.stopped) this.log("notifier: cannot give leases back", { err: error });
      });
    }
    return stale.length;
  }

  /**
   * One delivery attempt, how it ended for the destination gate and whether the row is settled. `answered`
   * hears it as soon as the receiver has: writing down the acknowledgement is the database's time, not a slot
   * of the destination.
   */
  private async deliver(
    row: OutboxRow,
    answered: (outcome: Outcome) => void,
  ): Promise<{ outcome: Outcome; settled: Settled }> {
    const body = JSON.stringify(row.payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "routerjobs-service",
      // The receiver checks the signature's time against its own clock: the wall clock's, always.
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
        answered("delivered");
        await this.acknowledged.submit(row.id);
        return { outcome: "delivered", settled: "done" };
      }
      failure = `HTTP ${response.statusCode}`;
    } catch (error) {
      failure = (error as Error).message || String(error);
      timedOut = TIMEOUT_CODES.has(String((error as { code?: unknown }).code));
    }
    const now = this.clock();
    // row.attempts counts this attempt: after the first one fails, the first retry waits up to the base.
    const next =
      now +
      fullJitterMs(
        row.attempts,
        this.config.notifyRetryBaseMs,
        this.config.notifyRetryMaxMs,
        this.timers.random,
      );
    const giveUp = next > row.created_at.getTime() + this.config.notifyGiveUpMs;
    if (giveUp) this.log("notifier: giving up", { outbox: row.id, job: row.job_id, error: failure });
    const outcome = timedOut ? "timed-out" : "failed";
    answered(outcome);
    try {
      await markFailed(this.db, row.id, failure, new Date(now), giveUp ? undefined : new Date(next));
    } catch {
      // Not written, the row keeps its lease until it runs out and is tried again then: nothing is lost.
      return { outcome, settled: "rescheduled" };
    }
    if (giveUp) return { outcome, settled: "done" };
    this.wakeAt(next);
    return { outcome, settled: "rescheduled" };
  }

  /** Stops delivering and waits for deliveries in flight (their leases expire if the process dies instead). */
  async close(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.pumping;
    await Promise.allSettled([...this.inFlight]);
    const waiting = [...this.waiting.values()].flat().map(({ row }) => row.id);
    this.waiting.clear();
    this.waitingCount = 0;
    // Given back so that the next start delivers them at once, not after their lease.
    await releaseLeases(this.db, waiting).catch(() => {});
    await this.dispatcher.close();
  }
}

/** Whether an attempt left its row done (acknowledged or abandoned) or rescheduled for a retry. */
type Settled = "done" | "rescheduled";

/** How a delivery attempt ended for its destination: acknowledged, failed at once, or timed out. */
type Outcome = "delivered" | "failed" | "timed-out";

/** A leased notification and when its lease ends. */
interface Waiting {
  readonly row: OutboxRow;
  readonly leasedUntil: number;
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
