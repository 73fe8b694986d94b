import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { formatDuration } from "../../../contract/duration.js";
import { DatabaseRateLimiter, MemoryRateLimiter, type RateLimiter } from "../../auth/rate-limiter.js";
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
    const limiter: RateLimiter =
      app.db.kind === "postgres"
        ? new DatabaseRateLimiter(app.db, limit)
        : new MemoryRateLimiter(limit, clock);
    app.addHook("onClose", async () => limiter.close?.());
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
