/**
 * The messages of Terraform's plugin protocol 6 (tfplugin6) that this provider sends or reads, described from
 * the protocol's documentation for wire.ts: field names as the protocol names them, numbers as it numbers them.
 * Only what a provider of managed resources and data sources needs; fields left out are skipped on decode.
 */
import type { FieldDescription, FieldKind, MessageDescription } from "./wire.js";

const message = (description: () => MessageDescription): FieldKind => ({ message: description });
const map = (description: () => MessageDescription): FieldKind => ({ map: description });
const describe = (name: string, fields: readonly FieldDescription[]): MessageDescription => ({
  name,
  fields,
});
const empty = (name: string) => describe(name, []);

export const DynamicValue = describe("DynamicValue", [
  { name: "msgpack", no: 1, kind: "bytes" },
  { name: "json", no: 2, kind: "bytes" },
]);

export const AttributePathStep = describe("AttributePath.Step", [
  { name: "attribute_name", no: 1, kind: "string" },
  { name: "element_key_string", no: 2, kind: "string" },
  { name: "element_key_int", no: 3, kind: "int64" },
]);

export const AttributePath = describe("AttributePath", [
  { name: "steps", no: 1, kind: message(() => AttributePathStep), repeated: true },
]);

export const Diagnostic = describe("Diagnostic", [
  { name: "severity", no: 1, kind: "enum" },
  { name: "summary", no: 2, kind: "string" },
  { name: "detail", no: 3, kind: "string" },
  { name: "attribute", no: 4, kind: message(() => AttributePath) },
]);

const diagnostics = (no: number): FieldDescription => ({
  name: "diagnostics",
  no,
  kind: message(() => Diagnostic),
  repeated: true,
});

export const SchemaAttribute: MessageDescription = describe("Schema.Attribute", [
  { name: "name", no: 1, kind: "string" },
  { name: "type", no: 2, kind: "bytes" },
  { name: "description", no: 3, kind: "string" },
  { name: "required", no: 4, kind: "bool" },
  { name: "optional", no: 5, kind: "bool" },
  { name: "computed", no: 6, kind: "bool" },
  { name: "sensitive", no: 7, kind: "bool" },
  { name: "description_kind", no: 8, kind: "enum" },
  { name: "deprecated", no: 9, kind: "bool" },
  { name: "write_only", no: 11, kind: "bool" },
]);

export const SchemaBlock = describe("Schema.Block", [
  { name: "version", no: 1, kind: "int64" },
  { name: "attributes", no: 2, kind: message(() => SchemaAttribute), repeated: true },
  { name: "description", no: 4, kind: "string" },
  { name: "description_kind", no: 5, kind: "enum" },
  { name: "deprecated", no: 6, kind: "bool" },
]);

export const Schema = describe("Schema", [
  { name: "version", no: 1, kind: "int64" },
  { name: "block", no: 2, kind: message(() => SchemaBlock) },
]);

export const ServerCapabilities = describe("ServerCapabilities", [
  { name: "plan_destroy", no: 1, kind: "bool" },
  { name: "get_provider_schema_optional", no: 2, kind: "bool" },
  { name: "move_resource_state", no: 3, kind: "bool" },
]);

const TypeName = describe("TypeName", [{ name: "type_name", no: 1, kind: "string" }]);

export const GetMetadataRequest = empty("GetMetadata.Request");
export const GetMetadataResponse = describe("GetMetadata.Response", [
  { name: "server_capabilities", no: 1, kind: message(() => ServerCapabilities) },
  diagnostics(2),
  { name: "data_sources", no: 3, kind: message(() => TypeName), repeated: true },
  { name: "resources", no: 4, kind: message(() => TypeName), repeated: true },
]);

export const GetProviderSchemaRequest = empty("GetProviderSchema.Request");
export const GetProviderSchemaResponse = describe("GetProviderSchema.Response", [
  { name: "provider", no: 1, kind: message(() => Schema) },
  { name: "resource_schemas", no: 2, kind: map(() => Schema) },
  { name: "data_source_schemas", no: 3, kind: map(() => Schema) },
  diagnostics(4),
  { name: "provider_meta", no: 5, kind: message(() => Schema) },
  { name: "server_capabilities", no: 6, kind: message(() => ServerCapabilities) },
]);

export const ValidateProviderConfigRequest = describe("ValidateProviderConfig.Request", [
  { name: "config", no: 1, kind: message(() => DynamicValue) },
]);
export const ValidateProviderConfigResponse = describe("ValidateProviderConfig.Response", [diagnostics(2)]);

export const ValidateConfigRequest = describe("ValidateResourceConfig.Request", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "config", no: 2, kind: message(() => DynamicValue) },
]);
export const DiagnosticsOnly = describe("Diagnostics.Response", [diagnostics(1)]);

export const RawState = describe("RawState", [{ name: "json", no: 1, kind: "bytes" }]);

export const UpgradeResourceStateRequest = describe("UpgradeResourceState.Request", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "version", no: 2, kind: "int64" },
  { name: "raw_state", no: 3, kind: message(() => RawState) },
]);
export const UpgradeResourceStateResponse = describe("UpgradeResourceState.Response", [
  { name: "upgraded_state", no: 1, kind: message(() => DynamicValue) },
  diagnostics(2),
]);

export const ConfigureProviderRequest = describe("ConfigureProvider.Request", [
  { name: "terraform_version", no: 1, kind: "string" },
  { name: "config", no: 2, kind: message(() => DynamicValue) },
]);

export const ReadResourceRequest = describe("ReadResource.Request", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "current_state", no: 2, kind: message(() => DynamicValue) },
  { name: "private", no: 3, kind: "bytes" },
]);
export const ReadResourceResponse = describe("ReadResource.Response", [
  { name: "new_state", no: 1, kind: message(() => DynamicValue) },
  diagnostics(2),
  { name: "private", no: 3, kind: "bytes" },
]);

export const PlanResourceChangeRequest = describe("PlanResourceChange.Request", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "prior_state", no: 2, kind: message(() => DynamicValue) },
  { name: "proposed_new_state", no: 3, kind: message(() => DynamicValue) },
  { name: "config", no: 4, kind: message(() => DynamicValue) },
  { name: "prior_private", no: 5, kind: "bytes" },
]);
export const PlanResourceChangeResponse = describe("PlanResourceChange.Response", [
  { name: "planned_state", no: 1, kind: message(() => DynamicValue) },
  { name: "requires_replace", no: 2, kind: message(() => AttributePath), repeated: true },
  { name: "planned_private", no: 3, kind: "bytes" },
  diagnostics(4),
]);

export const ApplyResourceChangeRequest = describe("ApplyResourceChange.Request", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "prior_state", no: 2, kind: message(() => DynamicValue) },
  { name: "planned_state", no: 3, kind: message(() => DynamicValue) },
  { name: "config", no: 4, kind: message(() => DynamicValue) },
  { name: "planned_private", no: 5, kind: "bytes" },
]);
export const ApplyResourceChangeResponse = describe("ApplyResourceChange.Response", [
  { name: "new_state", no: 1, kind: message(() => DynamicValue) },
  { name: "private", no: 2, kind: "bytes" },
  diagnostics(3),
]);

export const ImportResourceStateRequest = describe("ImportResourceState.Request", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "id", no: 2, kind: "string" },
]);
export const ImportedResource = describe("ImportResourceState.ImportedResource", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "state", no: 2, kind: message(() => DynamicValue) },
  { name: "private", no: 3, kind: "bytes" },
]);
export const ImportResourceStateResponse = describe("ImportResourceState.Response", [
  { name: "imported_resources", no: 1, kind: message(() => ImportedResource), repeated: true },
  diagnostics(2),
]);

export const MoveResourceStateRequest = describe("MoveResourceState.Request", [
  { name: "source_provider_address", no: 1, kind: "string" },
  { name: "source_type_name", no: 2, kind: "string" },
  { name: "source_schema_version", no: 3, kind: "int64" },
  { name: "source_state", no: 4, kind: message(() => RawState) },
  { name: "target_type_name", no: 5, kind: "string" },
  { name: "source_private", no: 6, kind: "bytes" },
]);
export const MoveResourceStateResponse = describe("MoveResourceState.Response", [
  { name: "target_state", no: 1, kind: message(() => DynamicValue) },
  diagnostics(2),
  { name: "target_private", no: 3, kind: "bytes" },
]);

export const ReadDataSourceRequest = describe("ReadDataSource.Request", [
  { name: "type_name", no: 1, kind: "string" },
  { name: "config", no: 2, kind: message(() => DynamicValue) },
]);
export const ReadDataSourceResponse = describe("ReadDataSource.Response", [
  { name: "state", no: 1, kind: message(() => DynamicValue) },
  diagnostics(2),
]);

export const GetFunctionsRequest = empty("GetFunctions.Request");
export const GetFunctionsResponse = describe("GetFunctions.Response", [diagnostics(2)]);

export const StopProviderRequest = empty("StopProvider.Request");
export const StopProviderResponse = describe("StopProvider.Response", [
  { name: "Error", no: 1, kind: "string" },
]);

/** go-plugin's and gRPC's own services beside the provider's. */
export const Empty = empty("google.protobuf.Empty");
export const HealthCheckRequest = describe("grpc.health.v1.HealthCheckRequest", [
  { name: "service", no: 1, kind: "string" },
]);
export const HealthCheckResponse = describe("grpc.health.v1.HealthCheckResponse", [
  { name: "status", no: 1, kind: "enum" },
]);
export const StdioData = describe("plugin.StdioData", [
  { name: "channel", no: 1, kind: "enum" },
  { name: "data", no: 2, kind: "bytes" },
]);

export const SEVERITY = { error: 1, warning: 2 } as const;
export const HEALTH_SERVING = 1;
