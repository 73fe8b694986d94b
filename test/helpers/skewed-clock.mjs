/**
 * A skewed wall clock for one process: `node --import <this file>` (or `NODE_OPTIONS=--import=<this file>`) with
 * `ROUTERJOBS_TEST_CLOCK_SKEW_MS=<ms>` (negative: behind) moves `Date.now()` and `new Date()` by that much.
 *
 * A test double for the one thing loopback cannot provide: a second machine's clock. Every other part of a
 * "second machine" (its own process, its own sockets, TLS, database) is real in the tests that use it.
 *
 * Only what JavaScript reads through the global `Date` moves. `Date` with arguments, `Date.parse`, `Date.UTC`
 * and every method delegate to the real Date; monotonic clocks (`performance.now()`, timers) do not move, as they
 * do not on a machine whose wall clock is wrong; nor does what Node and OpenSSL read natively (certificate
 * validity checks, the HTTP `Date` header), which is the real clock, as it is on any machine.
 */
const RealDate = globalThis.Date;
const SKEW_MS = Number(process.env.ROUTERJOBS_TEST_CLOCK_SKEW_MS ?? 0);

if (!Number.isFinite(SKEW_MS)) {
  throw new RangeError(
    `ROUTERJOBS_TEST_CLOCK_SKEW_MS must be a number of milliseconds (got ${process.env.ROUTERJOBS_TEST_CLOCK_SKEW_MS})`,
  );
}

class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + SKEW_MS);
    else super(...args);
  }

  /** Unbound calls (`const now = Date.now; now()`) must work, as they do on the real Date. */
  static now() {
    return RealDate.now() + SKEW_MS;
  }

  /** Dates made by Node's internals (the real Date) still pass `instanceof Date`. */
  static [Symbol.hasInstance](value) {
    return value instanceof RealDate;
  }
}

// `Date()` called as a function returns the current time as a string; a class cannot be called, so a proxy does.
globalThis.Date = new Proxy(SkewedDate, {
  apply: () => new SkewedDate().toString(),
});
