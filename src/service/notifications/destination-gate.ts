/**
 * Keeps one notification destination from taking every delivery slot. A receiver that never answers holds a
 * slot for the whole delivery timeout; a team that sends a job a second to such a URL would otherwise fill all
 * slots and delay every other team's notifications without bound.
 *
 * - At most `perDestination` deliveries to one destination (scheme, host and port as written) at a time.
 * - A circuit breaker per destination: after `failuresToOpen` timed-out attempts in a row its notifications wait
 *   (they stay due, nothing is lost) for `openMs`, doubling at each new timeout up to `maxOpenMs`; then one
 *   delivery tries it again (half-open), and a success closes the circuit. Only timeouts count: a receiver that
 *   is down answers at once (connection refused) and holds no slot, and its notifications must flow again as
 *   soon as it is back, on their own backoff.
 */
export interface DestinationGateOptions {
  /** @default 4 */
  readonly perDestination?: number;
  /** @default 5 */
  readonly failuresToOpen?: number;
  /** @default 10 s (the notifier passes its delivery timeout) */
  readonly openMs?: number;
  /** @default 1 min (the notifier passes six delivery timeouts) */
  readonly maxOpenMs?: number;
  readonly now?: () => number;
}

interface Destination {
  inFlight: number;
  failures: number;
  /** Closed while 0; otherwise the circuit is open until then, and half-open after. */
  openUntil: number;
  openMs: number;
}

/** Scheme, host and port as a URL writes them, as a pattern both JavaScript and PostgreSQL read alike. */
export const DESTINATION_PATTERN = "^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*";
const destinationPattern = new RegExp(DESTINATION_PATTERN);

/** `https://host:port` as the URL writes it: the part before the path. */
export function destinationOf(url: string): string {
  return destinationPattern.exec(url)?.[0] ?? url;
}

export class DestinationGate {
  private readonly destinations = new Map<string, Destination>();
  readonly perDestination: number;
  private readonly failuresToOpen: number;
  private readonly openMs: number;
  private readonly maxOpenMs: number;
  private readonly now: () => number;

  constructor(options: DestinationGateOptions = {}) {
    this.perDestination = options.perDestination ?? 4;
    this.failuresToOpen = options.failuresToOpen ?? 5;
    this.openMs = options.openMs ?? 10_000;
    this.maxOpenMs = options.maxOpenMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** How many more deliveries `destination` may take now (0 while its circuit is open or it is full). */
  room(destination: string): number {
    const state = this.destinations.get(destination);
    if (!state) return this.perDestination;
    if (state.openUntil > 0) {
      if (this.now() < state.openUntil) return 0;
      return state.inFlight === 0 ? 1 : 0; // half-open: one delivery tries it again
    }
    return Math.max(0, this.perDestination - state.inFlight);
  }

  /** Answering in time so far: no timed-out attempt since its last delivery, its circuit closed. */
  healthy(destination: string): boolean {
    const state = this.destinations.get(destination);
    return !state || (state.failures === 0 && state.openUntil === 0);
  }

  /** Destinations with a delivery in flight or a timeout on record: the others have the whole `perDestination`. */
  known(): string[] {
    return [...this.destinations.keys()];
  }

  /** Until when `destination`'s circuit is open (0: closed; a time past: half-open). */
  openUntil(destination: string): number {
    return this.destinations.get(destination)?.openUntil ?? 0;
  }

  /** When the earliest open circuit half-opens (its destination may take a delivery again), if one is open. */
  nextReopenAt(): number | undefined {
    let earliest: number | undefined;
    const now = this.now();
    for (const { openUntil } of this.destinations.values()) {
      if (openUntil > now && (earliest === undefined || openUntil < earliest)) earliest = openUntil;
    }
    return earliest;
  }

  start(destination: string): void {
    this.state(destination).inFlight++;
  }

  /** How an attempt ended: acknowledged, failed at once (refused, an HTTP error), or timed out. */
  finish(destination: string, outcome: "delivered" | "failed" | "timed-out"): void {
    const state = this.state(destination);
    state.inFlight--;
    if (outcome === "delivered") {
      state.failures = 0;
      state.openUntil = 0;
      state.openMs = this.openMs;
    } else if (outcome === "timed-out" && ++state.failures >= this.failuresToOpen) {
      // Opened anew (or again after a failed half-open try): the wait doubles each time.
      if (state.openUntil > 0) state.openMs = Math.min(this.maxOpenMs, state.openMs * 2);
      state.openUntil = this.now() + state.openMs;
    }
    if (state.inFlight === 0 && state.failures === 0) this.destinations.delete(destination);
  }

  private state(destination: string): Destination {
    let state = this.destinations.get(destination);
    if (!state) {
      state = { inFlight: 0, failures: 0, openUntil: 0, openMs: this.openMs };
      this.destinations.set(destination, state);
    }
    return state;
  }
}
