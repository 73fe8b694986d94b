/**
 * The data sources: `routerjobs_router` (a router's identity, model, RouterOS version and export, read through
 * the service's synchronous commands) and `routerjobs_jobs` (its job list, optionally only the jobs whose
 * description holds a text, which the service filters where it can). Reads only: nothing here submits a job.
 */
import { UsageError } from "../../errors.js";
import { readLiveConfig } from "../plan/live-config.js";
import type { ProviderContext } from "./config.js";
import { errorDiagnostic } from "./diagnostics.js";
import type { TfObject } from "./protocol/dynamic-value.js";
import type { WireMessage } from "./protocol/wire.js";
import type { DataSource } from "./provider.js";
import { type AttributeType, stringOf } from "./schema.js";

const ROUTER_ID = {
  name: "router_id",
  type: "string",
  required: true,
  description: "The router's UUID.",
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function routerIdOf(config: TfObject): string {
  const routerId = stringOf(config, "router_id") ?? "";
  if (!UUID.test(routerId))
    throw new UsageError(`router_id: must be a UUID (got ${JSON.stringify(routerId)})`);
  return routerId;
}

/** A router_id not yet known (it waits for another resource) is checked when it is. */
function validateRouterId(config: TfObject): WireMessage[] {
  if (stringOf(config, "router_id") === undefined) return [];
  try {
    routerIdOf(config);
    return [];
  } catch (error) {
    return [errorDiagnostic((error as Error).message, "", "router_id")];
  }
}

/** The first record's fields of a synchronous command's answer, each null when the router gives none. */
async function fieldsOf<Name extends string>(
  context: ProviderContext,
  routerId: string,
  command: string,
  fields: readonly Name[],
): Promise<Record<Name, string | null>> {
  const [record] = await context.client.execute(routerId, command, undefined, { signal: context.signal });
  const value = (field: Name) => {
    const found = record?.[field];
    return typeof found === "string" ? found : null;
  };
  return Object.fromEntries(fields.map((field) => [field, value(field)])) as Record<Name, string | null>;
}

export const routerDataSource: DataSource<ProviderContext> = {
  typeName: "routerjobs_router",
  schema: {
    description: "A router as the service reaches it: its identity, model, RouterOS version and export.",
    attributes: [
      ROUTER_ID,
      { name: "identity", type: "string", computed: true, description: "/system identity's name." },
      { name: "model", type: "string", computed: true, description: "The board's name (/system resource)." },
      {
        name: "version",
        type: "string",
        computed: true,
        description: "The RouterOS version (/system resource).",
      },
      {
        name: "export",
        type: "string",
        computed: true,
        description:
          "The router's configuration as /export prints it (RouterOS leaves sensitive values out of an export).",
      },
    ],
  },
  validate: validateRouterId,
  async read(context, config) {
    const routerId = routerIdOf(config);
    const [identity, resource, exported] = await Promise.all([
      fieldsOf(context, routerId, "/system/identity/print", ["name"]),
      fieldsOf(context, routerId, "/system/resource/print", ["board-name", "version"]),
      readLiveConfig(context.client, routerId),
    ]);
    return {
      router_id: routerId,
      identity: identity.name,
      model: resource["board-name"],
      version: resource.version,
      export: exported,
    };
  },
};

const JOB_FIELDS = {
  id: "string",
  seq_id: "number",
  description: "string",
  status: "string",
  started_at: "string",
  finished_at: "string",
  error: "string",
} as const;

const JOBS_TYPE: AttributeType = ["list", ["object", JOB_FIELDS]];

export const jobsDataSource: DataSource<ProviderContext> = {
  typeName: "routerjobs_jobs",
  schema: {
    description: "A router's jobs as the service lists them, newest first.",
    attributes: [
      ROUTER_ID,
      {
        name: "description_contains",
        type: "string",
        optional: true,
        description: "Only the jobs whose description holds this text (a change's marker, say).",
      },
      {
        name: "jobs",
        type: JOBS_TYPE,
        computed: true,
        description: "The jobs: id, seq_id, description, status, started_at, finished_at, error.",
      },
    ],
  },
  validate: validateRouterId,
  async read(context, config) {
    const routerId = routerIdOf(config);
    const text = stringOf(config, "description_contains");
    const call = { signal: context.signal };
    const listed = text
      ? await context.client.findJobs(routerId, text, call)
      : await context.client.listJobs(routerId, call);
    return {
      router_id: routerId,
      description_contains: text ?? null,
      jobs: listed.map((job) => ({
        id: job.id,
        seq_id: job.seq_id ?? null,
        description: job.description,
        status: job.status,
        started_at: job.started_at ?? null,
        finished_at: job.completed_at ?? job.failed_at ?? job.deleted_at ?? null,
        error: job.error ?? null,
      })),
    };
  },
};
