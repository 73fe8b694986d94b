/**
 * One request budget per API key, shared by every process of the user on this machine.
 *
 * A sliding-window log, not a token bucket: a bucket of size B at rate r admits B + r*T in a window T and can
 * break "60 in any 60 s"; a log of the last N grants cannot. A grant stays "open" while its request is in
 * flight and is stamped with the time the answer came back: the service saw the request somewhere between
 * grant and answer, so counting from the answer can never undercount the service's window, however the
 * network delays vary. A shared `blockedUntil` makes one 429 pause every process that uses the key.
 *
 * Cost: one locked read-modify-write per grant (a release rides along with the process's next grant), and
 * lock-free reads while waiting, so that N waiting processes do not storm the lock.
 */

import { randomUUID } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync, writeSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { formatDuration, type RateLimit } from "../contract/duration.js";
import { tryLockSync } from "../platform/fs/file-lock.js";
import { isProcessAlive } from "../platform/fs/process-alive.js";
import { TimeoutError } from "./errors.js";
import { pause } from "./patience.js";

interface Grant {
  readonly id: string;
  /** Grant time while open, answer time once closed. */
  t: number;
  readonly pid: number;
  open?: boolean;
}

export interface BudgetState {
  blockedUntil: number;
  grants: Grant[];
}

export interface Permit {
  /** `counted: false` for a request the service did not count (a 429): its slot is given back at once. */
  release(outcome: { counted: boolean }): Promise<void>;
}

export interface RateBudgetOptions {
  readonly dir: string;
  /** `tokenFingerprint(token)`: names the file without revealing the token. */
  readonly key: string;
  readonly rateLimit: RateLimit;
  /** Added to the window because the service's algorithm is unknown. @default 2% of the window, 10..100 ms */
  readonly headroomMs?: number;
  readonly onWarning?: (message: string) => void;
  /**
   * The budget's time: a test passes a simulated clock whose `sleep` moves it, so that windows pass without
   * real waiting. @default the real clock and timers
   */
  readonly clock?: BudgetClock;
}

export interface BudgetClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const REAL_TIME: BudgetClock = { now: () => Date.now(), sleep: pause };

/** Poll interval when every slot is held by a request still in flight (its end time is unknown). */
const IN_FLIGHT_POLL_MS = 20;
/** A lock older than this is taken over (its holder died); holders keep it only for a file write. */
const LOCK_STALE_MS = 5000;
/**
 * Releases wait this long for the process's next acquire, which writes them in the same locked cycle: that
 * halves the lock traffic of a busy process. Others see the slot open a little longer, which errs safe.
 */
const RELEASE_FLUSH_MS = 15;
const LOCK_BACKOFF_CAP_MS = 32;

interface Change<T> {
  readonly result: T;
  /** False when the state was only read: then nothing is written. */
  readonly dirty: boolean;
}

export class RateBudget {
  readonly file: string;
  readonly #options: RateBudgetOptions;
  readonly #windowMs: number;
  readonly #pending = new Map<string, { t: number; counted: boolean }>();
  readonly #clock: BudgetClock;
  #flushTimer: NodeJS.Timeout | undefined;
  #dirReady: Promise<unknown> | undefined;

  constructor(options: RateBudgetOptions) {
    this.#options = options;
    this.#clock = options.clock ?? REAL_TIME;
    this.file = join(options.dir, `rate-budget-${options.key}.json`);
    const headroom = options.headroomMs ?? Math.min(100, Math.max(10, options.rateLimit.windowMs * 0.02));
    this.#windowMs = options.rateLimit.windowMs + headroom;
  }

  /** Waits for a slot; throws TimeoutError (phase "budget") when none frees before `deadline`. */
  async acquire(deadline: number, signal?: AbortSignal): Promise<Permit> {
    for (;;) {
      // A lock-free look first keeps waiting processes off the lock; a torn read only gets a hint wrong.
      const peek = this.#read({ peek: true });
      const now = this.#clock.now();
      let waitMs = 0;
      if (peek) {
        this.#applyPending(peek);
        // A dead process's grant is closed under the lock, so that its time is written once.
        if (!prune(peek, now, this.#windowMs)) waitMs = this.#waitFor(peek, now);
      }
      if (waitMs === 0) {
        const id = randomUUID();
        waitMs = await this.#update(deadline, (state, at) => {
          const wait = this.#waitFor(state, at);
          if (wait === 0) state.grants.push({ id, t: at, pid: process.pid, open: true });
          return { result: wait, dirty: wait === 0 };
        });
        if (waitMs === 0) return { release: async (outcome) => this.#release(id, outcome) };
      }
      if (this.#clock.now() + waitMs > deadline) throw this.#exhausted(waitMs);
      signal?.throwIfAborted();
      await this.#clock.sleep(waitMs + Math.random() * 5, signal);
    }
  }

  /** After a 429: nobody sharing the key sends before `untilMs`. */
  async block(untilMs: number): Promise<void> {
    await this.#update(Number.POSITIVE_INFINITY, (state) => {
      state.blockedUntil = Math.max(state.blockedUntil, untilMs);
      return { result: undefined, dirty: true };
    });
  }

  /**
   * After a 429 that named no time (the public service documents no Retry-After): nobody sharing the key sends
   * until the local window frees a slot, that is until the oldest answered grant ages out, or for a whole window
   * when none is on record (the service then counted requests this machine never saw). A fixed short pause
   * would only draw more 429s. Resolves with the time the key is held until.
   */
  async blockUntilWindowFrees(): Promise<number> {
    return this.#update(Number.POSITIVE_INFINITY, (state, now) => {
      const answered = state.grants.filter((grant) => !grant.open).map((grant) => grant.t);
      const frees = (answered.length > 0 ? Math.min(...answered) : now) + this.#windowMs;
      state.blockedUntil = Math.max(state.blockedUntil, frees);
      return { result: state.blockedUntil, dirty: true };
    });
  }

  /** Writes releases still waiting for the next acquire (RouterJobsClient#close calls it). */
  async flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#pending.size > 0)
      await this.#update(Number.POSITIVE_INFINITY, () => ({ result: undefined, dirty: true }));
  }

  /** The shared state as it is now (tests, benchmarks, diagnostics). */
  async snapshot(): Promise<BudgetState> {
    return this.#read();
  }

  #release(id: string, outcome: { counted: boolean }): void {
    this.#pending.set(id, { t: this.#clock.now(), counted: outcome.counted });
    this.#flushTimer ??= setTimeout(() => {
      this.flush().catch((error: Error) =>
        this.#options.onWarning?.(`rate budget release failed: ${error.message}`),
      );
    }, RELEASE_FLUSH_MS);
  }

  /** Stamps released grants with their answer time, or drops those the service did not count. */
  #applyPending(state: BudgetState): boolean {
    if (this.#pending.size === 0) return false;
    state.grants = state.grants.filter((grant) => {
      const released = this.#pending.get(grant.id);
      if (!released) return true;
      grant.t = released.t;
      delete grant.open;
      return released.counted;
    });
    return true;
  }

  /** 0 when a slot is free now, else how long until one may be. */
  #waitFor(state: BudgetState, now: number): number {
    if (state.blockedUntil > now) return state.blockedUntil - now;
    const { count } = this.#options.rateLimit;
    if (state.grants.length < count) return 0;
    const closed = state.grants
      .filter((grant) => !grant.open)
      .map((grant) => grant.t)
      .sort((a, b) => a - b);
    // Enough slots free up once this many closed grants have aged out (more when a process used a larger count).
    const freeing = closed[state.grants.length - count];
    return freeing === undefined ? IN_FLIGHT_POLL_MS : Math.max(1, freeing + this.#windowMs - now);
  }

  #exhausted(waitMs: number): TimeoutError {
    const { count, windowMs } = this.#options.rateLimit;
    return new TimeoutError(
      `no request slot before the deadline: the rate budget of ${count}/${formatDuration(windowMs)} for this ` +
        `API key (shared by its processes through ${this.file}) frees a slot only in ${Math.ceil(waitMs)} ms`,
      { phase: "budget", requestSent: false },
    );
  }

  /**
   * Read-modify-write under the cross-process lock; pending releases ride along. The critical section is
   * synchronous on purpose: async file calls would hand the CPU back between steps while the lock is held, and
   * with ten processes on a busy machine those gaps, not the work, made the lock the bottleneck.
   */
  async #update<T>(deadline: number, change: (state: BudgetState, now: number) => Change<T>): Promise<T> {
    this.#dirReady ??= mkdir(this.#options.dir, { recursive: true, mode: 0o700 });
    await this.#dirReady;
    for (let attempt = 0; ; attempt++) {
      const unlock = this.#tryLock();
      if (unlock) {
        try {
          return this.#change(change);
        } finally {
          unlock();
        }
      }
      if (this.#clock.now() > deadline) throw this.#exhausted(0);
      // Waiters back off (full jitter): spinning ones would take the CPU from the holder they wait for.
      await this.#clock.sleep(1 + Math.random() * Math.min(LOCK_BACKOFF_CAP_MS, 2 ** attempt));
    }
  }

  #change<T>(change: (state: BudgetState, now: number) => Change<T>): T {
    const state = this.#read();
    const now = this.#clock.now();
    const released = [...this.#pending.keys()];
    const releasing = this.#applyPending(state);
    const closedDead = prune(state, now, this.#windowMs);
    const { result, dirty } = change(state, now);
    if (dirty || releasing || closedDead) {
      overwrite(this.file, JSON.stringify(state));
      for (const id of released) this.#pending.delete(id);
    }
    return result;
  }

  /** The lock, or undefined while another process holds it. A holder dead for LOCK_STALE_MS loses it. */
  #tryLock(): (() => void) | undefined {
    return tryLockSync(this.file, { staleMs: LOCK_STALE_MS });
  }

  #read(mode: { peek: true }): BudgetState | undefined;
  #read(): BudgetState;
  #read(mode?: { peek: true }): BudgetState | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { blockedUntil: 0, grants: [] };
      throw error;
    }
    try {
      const state = JSON.parse(text) as BudgetState;
      if (typeof state.blockedUntil === "number" && Array.isArray(state.grants)) return state;
    } catch {
      // Falls through: a peek may catch a write half done; under the lock, only a crash mid-write tears it.
    }
    if (mode?.peek) return undefined;
    this.#options.onWarning?.(`rate budget file ${this.file} was unreadable and has been reset`);
    return { blockedUntil: 0, grants: [] };
  }
}

/**
 * Rewrites the file in place, padding with spaces (valid trailing JSON whitespace) instead of truncating.
 * Every writer holds the lock. Renames and truncations cost more than the rest of the cycle on some disks, and
 * a lock-free peek that reads a write half done only gets a hint wrong: the locked path decides.
 */
function overwrite(file: string, text: string): void {
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    const size = fstatSync(fd).size;
    writeSync(fd, text.length < size ? text.padEnd(size) : text, 0, "utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Drops grants that aged out; closes the open grants of processes that died mid-request (as of now: when they
 * died is unknown). Returns whether it closed any, which must then be written.
 */
function prune(state: BudgetState, now: number, windowMs: number): boolean {
  let closedDead = false;
  for (const grant of state.grants) {
    if (grant.open && grant.pid !== process.pid && !isProcessAlive(grant.pid)) {
      grant.t = now;
      delete grant.open;
      closedDead = true;
    }
  }
  state.grants = state.grants.filter((grant) => grant.open || grant.t > now - windowMs);
  return closedDead;
}
