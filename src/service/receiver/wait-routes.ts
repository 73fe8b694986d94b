import type { FastifyInstance } from "fastify";
import * as z from "zod";
import { parseDuration } from "../../contract/duration.js";
import { errorEnvelope } from "../../contract/errors.js";
import { isTerminal } from "../../contract/job.js";
import { textField } from "../../contract/text-field.js";
import { bearerToken } from "../../platform/http/bearer.js";
import type { ReceivedJob } from "./job-view.js";
import type { NotificationStore } from "./notification-store.js";
import { matchesAnySecret } from "./verify.js";
import type { Wakeups } from "./wakeups.js";

export const MAX_WAIT_MS = 60_000;
const MAX_LIST_LIMIT = 100;

export interface WaitRoutesOptions {
  readonly store: NotificationStore;
  readonly wakeups: Wakeups;
  readonly readerTokens: readonly string[];
  /**
   * How often a long poll re-reads the store even without a wake. With PostgreSQL this covers a NOTIFY lost
   * while the LISTEN connection reconnected; with PGlite every write is local and no re-read is needed.
   * @default MAX_WAIT_MS
   */
  readonly recheckMs?: number;
}

const querySchema = z
  .strictObject({
    idempotency_key: textField("idempotency_key", { nonEmpty: true }).optional(),
    job_id: textField("job_id", { nonEmpty: true }).optional(),
    router_id: textField("router_id", { nonEmpty: true }).optional(),
    wait: z
      .string()
      .transform((text, ctx) => {
        try {
          const ms = parseDuration(text, "wait");
          if (ms <= MAX_WAIT_MS) return ms;
          ctx.addIssue({ code: "custom", message: `wait must be at most 60s (got ${text})` });
        } catch (error) {
          ctx.addIssue({ code: "custom", message: (error as Error).message });
        }
        return z.NEVER;
      })
      .optional(),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_LIST_LIMIT, { error: `limit must be at most ${MAX_LIST_LIMIT}` })
      .default(20),
  })
  .refine((query) => query.idempotency_key === undefined || query.job_id === undefined, {
    error: "give idempotency_key or job_id, not both",
    path: ["job_id"],
  })
  .refine(
    (query) => query.wait === undefined || query.idempotency_key !== undefined || query.job_id !== undefined,
    { error: "wait needs idempotency_key or job_id", path: ["wait"] },
  );

/** One job's name in a query: its idempotency key, or its id (the only name a minimal notification gives). */
interface JobName {
  readonly value: string;
  readonly label: string;
  find(store: NotificationStore): Promise<ReceivedJob | undefined>;
}

function jobName(query: { idempotency_key?: string; job_id?: string }): JobName | undefined {
  const { idempotency_key: key, job_id: jobId } = query;
  if (key !== undefined)
    return { value: key, label: `idempotency key ${key}`, find: (store) => store.findByIdempotencyKey(key) };
  if (jobId !== undefined)
    return { value: jobId, label: `job ${jobId}`, find: (store) => store.findByJobId(jobId) };
  return undefined;
}

/**
 * The reader side: current state by idempotency key or job id (optionally long-polled), recent jobs, all behind
 * a token.
 */
export async function waitRoutes(app: FastifyInstance, options: WaitRoutesOptions): Promise<void> {
  app.get("/v1/jobs", async (request, reply) => {
    const token = bearerToken(request.headers.authorization);
    if (!token || !matchesAnySecret(token, options.readerTokens)) {
      return reply
        .code(401)
        .header("www-authenticate", "Bearer")
        .send(
          errorEnvelope("unauthenticated", "a valid reader token is required (Authorization: Bearer ...)"),
        );
    }
    const query = querySchema.safeParse(request.query);
    if (!query.success) {
      const details = query.error.issues.map((issue) => ({
        field: issue.path.join(".") || "(query)",
        message: issue.message,
      }));
      return reply.code(422).send(errorEnvelope("invalid_request", "the query is not valid", details));
    }
    const { wait, router_id: routerId, limit } = query.data;
    const name = jobName(query.data);
    if (name === undefined) {
      const jobs = await options.store.recent({ ...(routerId ? { routerId } : {}), limit });
      return reply.send({ status: "success", data: jobs });
    }
    const job = wait === undefined ? await name.find(options.store) : await longPoll(name, wait);
    if (!job) {
      return reply
        .code(404)
        .send(errorEnvelope("not_found", `the receiver has heard nothing of ${name.label}`));
    }
    return reply.send({ status: "success", data: job });

    async function longPoll(name: JobName, waitMs: number): Promise<ReceivedJob | undefined> {
      // A client that hangs up stops the wait, so abandoned polls do not pile up until their timeout.
      const hangUp = new AbortController();
      reply.raw.once("close", () => hangUp.abort());
      const watch = options.wakeups.watch(name.value);
      try {
        const deadline = performance.now() + waitMs;
        let current = await name.find(options.store);
        while (
          !(current && isTerminal(current.status)) &&
          !options.wakeups.isClosed &&
          !hangUp.signal.aborted
        ) {
          const remainingMs = deadline - performance.now();
          if (remainingMs <= 0) break;
          const woken = await watch.next(
            Math.min(remainingMs, options.recheckMs ?? MAX_WAIT_MS),
            hangUp.signal,
          );
          // A terminal state never changes, so a committed terminal state needs no second read.
          current = woken && isTerminal(woken.status) ? woken : await name.find(options.store);
        }
        return current;
      } finally {
        watch.close();
      }
    }
  });
}
