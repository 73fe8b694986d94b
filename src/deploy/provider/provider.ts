/**
 * The Provider service's RPCs over this provider's resources: values decoded from and encoded to
 * DynamicValues, every failure a diagnostic (Terraform shows its summary and detail; a thrown RPC would show
 * as a gRPC error). Terraform calls ConfigureProvider before any call that needs the service.
 */
import { errorDiagnostic } from "./diagnostics.js";
import {
  decodeJsonValue,
  decodeValue,
  encodeValue,
  isKnownObject,
  type TfObject,
  type TfValue,
} from "./protocol/dynamic-value.js";
import type { ProviderRpcs } from "./protocol/server.js";
import type { WireMessage } from "./protocol/wire.js";
import { type BlockSpec, conform, plannedForCreate, replacingChanges, wireSchema } from "./schema.js";

export interface ManagedResource<Context> {
  readonly typeName: string;
  readonly schema: BlockSpec;
  /** Problems of a configuration (unknown values may stand in it). */
  validate(config: TfObject): WireMessage[];
  /** Completes a plan: defaults and computed values, given the prior state (null for a new resource). */
  plan(prior: TfObject | null, planned: TfObject): TfObject;
  /**
   * What a planned new object would do, added to its plan (the provider's context once configured); an error
   * among the diagnostics fails the plan.
   */
  planEffect?(context: Context | undefined, planned: TfObject): Promise<PlanOutcome>;
  create(context: Context, planned: TfObject): Promise<ApplyOutcome>;
  update(context: Context, prior: TfObject, planned: TfObject): Promise<ApplyOutcome>;
  delete(context: Context, prior: TfObject): Promise<void>;
  /**
   * Attributes whose planned change replaces the object beyond the schema's own (`replaces`), given the
   * object's private data (what the provider recorded beside the state).
   */
  replaces?(prior: TfObject, planned: TfObject, priorPrivate: Uint8Array | undefined): string[];
  /**
   * The object a resource of another type becomes under a `moved` block (Terraform >= 1.8). Terraform asks
   * before it configures the provider: what needs the service is the refresh's to do.
   */
  moveState?(source: MoveSource): MovedObject;
  /** The refreshed object (its state null when it is gone), given its private data. */
  read(context: Context, current: TfObject, privateData: Uint8Array | undefined): Promise<ReadOutcome>;
  importState(context: Context, id: string): Promise<TfObject>;
}

/** A resource of another type, as a `moved` block hands it over. */
export interface MoveSource {
  readonly providerAddress: string;
  readonly typeName: string;
  /** The source's stored state, as Terraform's JSON state holds it. */
  readonly state: TfValue;
}

/** What it becomes here, with the provider's private data for the object. */
export interface MovedObject {
  readonly state: TfObject;
  /** Private data for the object: Terraform keeps it beside the state and hands it back to each call. */
  readonly private: Uint8Array;
  readonly diagnostics: readonly WireMessage[];
}

/** What a refresh ends with: the state (null: gone), its private data where it changed, and diagnostics. */
export interface ReadOutcome {
  readonly state: TfObject | null;
  readonly private?: Uint8Array | undefined;
  readonly diagnostics?: readonly WireMessage[] | undefined;
}

/** What an apply ends with: the state to record (null: none), and the diagnostics (an error fails it). */
export interface ApplyOutcome {
  readonly state: TfObject | null;
  readonly diagnostics: readonly WireMessage[];
}

export interface DataSource<Context> {
  readonly typeName: string;
  readonly schema: BlockSpec;
  /** Problems of a configuration (unknown values may stand in it). */
  validate(config: TfObject): WireMessage[];
  read(context: Context, config: TfObject): Promise<TfObject>;
}

export interface PlanOutcome {
  readonly planned: TfObject;
  readonly diagnostics: readonly WireMessage[];
}

export interface ProviderDefinition<Context> {
  readonly schema: BlockSpec;
  readonly resources: readonly ManagedResource<Context>[];
  readonly dataSources?: readonly DataSource<Context>[];
  validateConfig(config: TfObject): WireMessage[];
  configure(config: TfObject): Promise<Context>;
  /** Terraform asked the provider to stop what it is doing (Ctrl-C). */
  stop(): void;
}

const dynamic = (value: TfValue) => ({ msgpack: encodeValue(value) });

function decodedField(message: WireMessage | undefined, field: string): TfValue {
  const dynamicValue = message?.[field] as WireMessage | undefined;
  if (!dynamicValue) return null;
  const json = dynamicValue.json as Uint8Array | undefined;
  if (json && json.length > 0) return decodeJsonValue(json);
  return decodeValue((dynamicValue.msgpack as Uint8Array | undefined) ?? new Uint8Array(0));
}

function objectOf(message: WireMessage, field: string): TfObject | null {
  const value = decodedField(message, field);
  return isKnownObject(value) ? value : null;
}

function failure(error: unknown): WireMessage {
  const message = error instanceof Error ? error.message : String(error);
  return errorDiagnostic(message.split("\n")[0] ?? message, message);
}

export function providerRpcs<Context>(definition: ProviderDefinition<Context>): ProviderRpcs {
  const resources = new Map(definition.resources.map((resource) => [resource.typeName, resource]));
  const dataSources = definition.dataSources ?? [];
  const dataSourceOf = (request: WireMessage) => {
    const name = request.type_name as string;
    const found = dataSources.find((source) => source.typeName === name);
    if (!found) throw new Error(`this provider has no data source ${JSON.stringify(name)}`);
    return found;
  };
  let configured: Context | undefined;
  let configureError: unknown;

  const resourceOf = (request: WireMessage) => {
    const name = request.type_name as string;
    const resource = resources.get(name);
    if (!resource) throw new Error(`this provider has no resource type ${JSON.stringify(name)}`);
    return resource;
  };
  const contextOf = (): Context => {
    if (configured !== undefined) return configured;
    throw configureError ?? new Error("the provider was not configured before it was used");
  };

  return {
    GetMetadata: async () => ({
      server_capabilities: { get_provider_schema_optional: false, move_resource_state: true },
      resources: definition.resources.map((resource) => ({ type_name: resource.typeName })),
      data_sources: dataSources.map((source) => ({ type_name: source.typeName })),
    }),
    GetProviderSchema: async () => ({
      provider: wireSchema(definition.schema),
      resource_schemas: Object.fromEntries(
        definition.resources.map((resource) => [resource.typeName, wireSchema(resource.schema)]),
      ),
      data_source_schemas: Object.fromEntries(
        dataSources.map((source) => [source.typeName, wireSchema(source.schema)]),
      ),
      server_capabilities: { move_resource_state: true },
    }),
    ValidateProviderConfig: async (request) => ({
      diagnostics: definition.validateConfig(conform(definition.schema, decodedField(request, "config"))),
    }),
    ConfigureProvider: async (request) => {
      try {
        configured = await definition.configure(conform(definition.schema, decodedField(request, "config")));
        return { diagnostics: [] };
      } catch (error) {
        configureError = error;
        return { diagnostics: [failure(error)] };
      }
    },
    ValidateResourceConfig: async (request) => {
      const resource = resourceOf(request);
      return { diagnostics: resource.validate(conform(resource.schema, decodedField(request, "config"))) };
    },
    ValidateDataResourceConfig: async (request) => {
      try {
        const source = dataSourceOf(request);
        return { diagnostics: source.validate(conform(source.schema, decodedField(request, "config"))) };
      } catch (error) {
        return { diagnostics: [failure(error)] };
      }
    },
    UpgradeResourceState: async (request) => {
      const resource = resourceOf(request);
      const raw = request.raw_state as WireMessage | undefined;
      const stored = decodeJsonValue((raw?.json as Uint8Array | undefined) ?? new Uint8Array(0));
      return { upgraded_state: dynamic(conform(resource.schema, stored)), diagnostics: [] };
    },
    ReadResource: async (request) => {
      const resource = resourceOf(request);
      const current = objectOf(request, "current_state");
      if (!current) return { new_state: dynamic(null), diagnostics: [] };
      try {
        const privateData = request.private as Uint8Array | undefined;
        const outcome = await resource.read(contextOf(), conform(resource.schema, current), privateData);
        return {
          new_state: dynamic(outcome.state),
          private: outcome.private ?? privateData,
          diagnostics: [...(outcome.diagnostics ?? [])],
        };
      } catch (error) {
        return { new_state: dynamic(current), private: request.private, diagnostics: [failure(error)] };
      }
    },
    PlanResourceChange: async (request) => {
      const resource = resourceOf(request);
      const proposed = objectOf(request, "proposed_new_state");
      if (!proposed) return { planned_state: dynamic(null), diagnostics: [] };
      const prior = objectOf(request, "prior_state");
      try {
        const conformed = conform(resource.schema, proposed);
        const priorObject = prior ? conform(resource.schema, prior) : null;
        const priorPrivate = request.prior_private as Uint8Array | undefined;
        const replacing = priorObject
          ? [
              ...new Set([
                ...replacingChanges(resource.schema, priorObject, conformed),
                ...(resource.replaces?.(priorObject, conformed, priorPrivate) ?? []),
              ]),
            ]
          : [];
        const created = !priorObject || replacing.length > 0;
        const planned = created
          ? resource.plan(null, plannedForCreate(resource.schema, conformed))
          : resource.plan(priorObject, conformed);
        // Only a new object runs anything: an update in place or no change costs nothing here.
        const outcome =
          created && resource.planEffect
            ? await resource.planEffect(configured, planned)
            : { planned, diagnostics: [] };
        return {
          planned_state: dynamic(outcome.planned),
          requires_replace: replacing.map((name) => ({ steps: [{ attribute_name: name }] })),
          // Kept for the object that stays; a new object starts without.
          ...(created || !priorPrivate ? {} : { planned_private: priorPrivate }),
          diagnostics: [...outcome.diagnostics],
        };
      } catch (error) {
        return { planned_state: dynamic(proposed), diagnostics: [failure(error)] };
      }
    },
    ApplyResourceChange: async (request) => {
      const resource = resourceOf(request);
      const prior = objectOf(request, "prior_state");
      const planned = objectOf(request, "planned_state");
      try {
        const context = contextOf();
        if (!planned) {
          if (prior) await resource.delete(context, conform(resource.schema, prior));
          return { new_state: dynamic(null), diagnostics: [] };
        }
        const outcome = prior
          ? await resource.update(context, conform(resource.schema, prior), conform(resource.schema, planned))
          : await resource.create(context, conform(resource.schema, planned));
        return { new_state: dynamic(outcome.state), diagnostics: [...outcome.diagnostics] };
      } catch (error) {
        // A failed delete keeps the object; a failed update keeps the prior one; a failed create records none.
        return { new_state: dynamic(prior), diagnostics: [failure(error)] };
      }
    },
    ImportResourceState: async (request) => {
      const resource = resourceOf(request);
      try {
        const state = await resource.importState(contextOf(), request.id as string);
        return {
          imported_resources: [
            { type_name: resource.typeName, state: dynamic(conform(resource.schema, state)) },
          ],
        };
      } catch (error) {
        return { diagnostics: [failure(error)] };
      }
    },
    MoveResourceState: async (request) => {
      try {
        const resource = resourceOf({ type_name: request.target_type_name });
        if (!resource.moveState)
          throw new Error(`${resource.typeName} cannot take the state of another resource type`);
        const raw = request.source_state as WireMessage | undefined;
        const moved = resource.moveState({
          providerAddress: String(request.source_provider_address ?? ""),
          typeName: String(request.source_type_name ?? ""),
          state: decodeJsonValue((raw?.json as Uint8Array | undefined) ?? new Uint8Array(0)),
        });
        return {
          target_state: dynamic(conform(resource.schema, moved.state)),
          target_private: moved.private,
          diagnostics: [...moved.diagnostics],
        };
      } catch (error) {
        return { diagnostics: [failure(error)] };
      }
    },
    ReadDataSource: async (request) => {
      try {
        const source = dataSourceOf(request);
        const state = await source.read(contextOf(), conform(source.schema, decodedField(request, "config")));
        return { state: dynamic(conform(source.schema, state)), diagnostics: [] };
      } catch (error) {
        return { diagnostics: [failure(error)] };
      }
    },
    GetFunctions: async () => ({ diagnostics: [] }),
    StopProvider: async () => {
      definition.stop();
      return {};
    },
  };
}
