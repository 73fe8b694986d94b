import type { ErrorDetail } from "../../contract/errors.js";
import { notificationSchema } from "../../contract/job.js";
import type { ReceivedJob } from "./job-view.js";
import { type NotificationStore, wakeNames } from "./notification-store.js";
import { type VerifyFailure, verifyWebhook, type WebhookHeaders } from "./verify.js";
import type { Wakeups } from "./wakeups.js";

/** What became of one delivery; the HTTP adapter turns each kind into its status code. */
export type ReceiveOutcome =
  | { readonly kind: "stored"; readonly duplicate: boolean; readonly job: ReceivedJob }
  | { readonly kind: "unauthenticated"; readonly reason: VerifyFailure }
  | { readonly kind: "malformed"; readonly message: string }
  | { readonly kind: "invalid"; readonly details: readonly ErrorDetail[] };

export interface ReceiverCoreOptions {
  readonly store: NotificationStore;
  readonly wakeups: Wakeups;
  /** HMAC keys from `whsec_` secrets; empty when signing is off (the path secret alone authenticates). */
  readonly signingKeys: readonly Buffer[];
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * The typed middle layer: verify the raw bytes (when signing is on), parse, validate with the contract's schema,
 * store durably, then wake the waiters. It knows nothing of HTTP.
 */
export async function receive(
  options: ReceiverCoreOptions,
  body: Buffer,
  headers: WebhookHeaders,
): Promise<ReceiveOutcome> {
  if (options.signingKeys.length > 0) {
    const verified = verifyWebhook(options.signingKeys, headers, body, (options.now ?? Date.now)());
    if (!verified.ok) return { kind: "unauthenticated", reason: verified.reason };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    return { kind: "malformed", message: "the body is not valid JSON" };
  }
  const result = notificationSchema.safeParse(parsed);
  if (!result.success) {
    return {
      kind: "invalid",
      details: result.error.issues.map((issue) => ({
        field: issue.path.join(".") || "(body)",
        message: issue.message,
      })),
    };
  }
  const rawStatus = (parsed as { status: string }).status;
  const { duplicate, job } = await options.store.record(result.data, rawStatus, headers.id);
  if (!duplicate) for (const name of wakeNames(job)) options.wakeups.notify(name, job);
  return { kind: "stored", duplicate, job };
}
