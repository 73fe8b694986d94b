import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { formatDuration, type RateLimit } from "../../../contract/duration.js";
import {
  DatabaseRateLimiter,
  MemoryRateLimiter,
  type RateDecision,
  type RateLimiter,
} from "../../auth/rate-limiter.js";
import { HttpError } from "../http-error.js";
import { callerOf } from "./auth.js";

declare module "fastify" {
  interface FastifyInstance {
    /** onRequest hook after `authenticate`: admits the request or answers 429. */
    rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void>;
    /** Requests admitted per token id since this instance started (what a key has spent of its budget). */
    readonly admittedRequests: ReadonlyMap<string, number>;
    /** Requests answered 429 per token id since this instance started. */
    readonly rateLimitedRequests: ReadonlyMap<string, number>;
    /**
     * Another limit over the same mechanism (the portal's sign-in and page limits): in memory on PGlite, in the
     * database on PostgreSQL, on the same clock, closed with the app. Its keys must not be token ids, which
     * are the API budget's.
     */
    rateLimiter(limit: RateLimit): (key: string) => Promise<RateDecision>;
  }
}

/**
 * Per API key. PGlite serves one process, so the log lives in memory; on PostgreSQL the log is in the database
 * so that every instance shares one limit.
 */
export default fp(
  async function rateLimit(app: FastifyInstance, options: { clock?: () => number }) {
    const clock = options.clock ?? Date.now;
    const { rateLimit: limit } = app.config;
    const limiters: RateLimiter[] = [];
    const limiterOf = (each: RateLimit): RateLimiter => {
      const made: RateLimiter =
        app.db.kind === "postgres"
          ? new DatabaseRateLimiter(app.db, each)
          : new MemoryRateLimiter(each, clock);
      limiters.push(made);
      return made;
    };
    const limiter = limiterOf(limit);
    app.addHook("onClose", async () => {
      for (const each of limiters) each.close?.();
    });
    app.decorate("rateLimiter", (each: RateLimit) => {
      const made = limiterOf(each);
      return (key: string) => made.take(key, clock());
    });
    const admitted = new Map<string, number>();
    const limited = new Map<string, number>();
    app.decorate("admittedRequests", admitted);
    app.decorate("rateLimitedRequests", limited);
    app.decorate("rateLimit", async (request: FastifyRequest, reply: FastifyReply) => {
      const { tokenId } = callerOf(request);
      const decision = await limiter.take(tokenId, clock());
      const counter = decision.allowed ? admitted : limited;
      counter.set(tokenId, (counter.get(tokenId) ?? 0) + 1);
      reply.header("x-ratelimit-limit", decision.limit);
      reply.header("x-ratelimit-remaining", decision.remaining);
      if (!decision.allowed) {
        const retryAfter = String(decision.retryAfterSeconds ?? 1);
        throw new HttpError(
          "rate_limited",
          `at most ${limit.count} requests per ${formatDuration(limit.windowMs)} per API key; retry in ${retryAfter} s`,
          [],
          { "retry-after": retryAfter },
        );
      }
    });
  },
  { name: "rate-limit", dependencies: ["auth"] },
);
