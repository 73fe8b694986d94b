import { randomUUID } from "node:crypto";
import { commandReply, runCommand, specRecord } from "./commands.js";
import type { Devices } from "./device.js";
import type { RequestContext, Route } from "./http-server.js";
import { type JobStore, specListItem } from "./jobs.js";
import { json, Validation } from "./laravel.js";

export interface SpecApiSetup {
  jobs: JobStore;
  devices: Devices;
  needsAckDefault: boolean;
  legacyJobList: boolean;
  submit(job: ReturnType<JobStore["create"]>): void;
  /** Awaited after the job is created and before it is acknowledged: a test's gate ("taken, not answered"). */
  beforeAcknowledgement?(job: ReturnType<JobStore["create"]>): Promise<void>;
}

/** A body that is not a JSON object reads as no input at all, as Laravel's request does. */
function input(context: RequestContext): Record<string, unknown> {
  if (!String(context.headers["content-type"] ?? "").includes("json")) return {};
  try {
    const parsed: unknown = JSON.parse(context.body);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The date in the acknowledgement: ISO 8601 with an explicit UTC offset, as the spec words it. */
const withOffset = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "+00:00");

/** API A, the spec's endpoints under /api. Any idempotency header is ignored: every POST is a new job. */
export function specApiRoutes(setup: SpecApiSetup): Route[] {
  const submit: Route = {
    method: "POST",
    path: /^\/api\/asynchronous\/([^/]+)$/,
    async handle(context) {
      const body = input(context);
      const check = new Validation();
      const description = check.text("description", body.description, { required: true, max: 100 });
      const script = check.text("script", body.script, { required: true, max: 2000 });
      const backup = check.boolean("make_backup", body.make_backup, false);
      const expressExecute = check.boolean("express_execute", body.express_execute, false);
      const needsAcknowledgement = check.boolean(
        "needs_acknowledgement",
        body.needs_acknowledgement,
        setup.needsAckDefault,
      );
      const notifyUrl = check.text("notify_url", body.notify_url, { required: false });
      check.startsWith("notify_url", notifyUrl, "https");
      const failure = check.failure();
      if (failure || description === undefined || script === undefined) return failure ?? json(500, {});
      const job = setup.jobs.create({
        siteId: context.siteId,
        teamId: context.team.id,
        idempotencyKey: randomUUID(),
        description,
        script,
        backup,
        expressExecute,
        needsAcknowledgement,
        notifyUrl: notifyUrl ?? null,
      });
      setup.submit(job);
      await setup.beforeAcknowledgement?.(job);
      const data = {
        idempotency_key: job.idempotencyKey,
        request_id: job.requestId,
        target: job.siteId,
        notify_url: job.notifyUrl,
        date: withOffset(job.createdAt),
      };
      return json(200, { status: "success", data });
    },
  };

  const synchronous: Route = {
    method: "POST",
    path: /^\/api\/synchronous\/([^/]+)$/,
    handle(context) {
      const body = input(context);
      const check = new Validation();
      const command = check.text("command", body.command, { required: true });
      const parameters = check.text("parameters", body.parameters, { required: false }) ?? "";
      const failure = check.failure();
      if (failure || command === undefined) return failure ?? json(500, {});
      // "=script=<commands>" keeps its spaces; other parameters are whitespace-separated API words.
      const words = parameters.startsWith("=script=")
        ? [parameters]
        : parameters.split(/\s+/).filter(Boolean);
      return commandReply(() => ({
        status: "success",
        data: runCommand(setup.devices, context.siteId, command, words).map(specRecord),
      }));
    },
  };

  const list: Route = {
    method: "GET",
    path: /^\/api\/routers\/([^/]+)\/jobs$/,
    handle: (context) =>
      json(200, { status: "success", data: setup.jobs.forSite(context.siteId).map(specListItem) }),
  };

  return setup.legacyJobList ? [submit, synchronous, list] : [submit, synchronous];
}
