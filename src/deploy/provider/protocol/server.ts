/**
 * The plugin's gRPC server: Terraform's Provider service (tfplugin6), beside go-plugin's controller (Terraform
 * asks the plugin to shut down through it), its stdio service (kept open and silent: this provider logs to
 * stderr, which go-plugin reads directly), its broker (unused, kept open so go-plugin logs no error) and the
 * standard health service. Messages are (de)serialised by wire.ts from messages.ts: no generated code.
 */
import * as grpc from "@grpc/grpc-js";
import * as m from "./messages.js";
import { decodeMessage, encodeMessage, type MessageDescription, type WireMessage } from "./wire.js";

export type Rpc = (request: WireMessage) => Promise<WireMessage>;

/** The Provider service's unary methods this server offers: request and response descriptions. */
export const PROVIDER_METHODS = {
  GetMetadata: [m.GetMetadataRequest, m.GetMetadataResponse],
  GetProviderSchema: [m.GetProviderSchemaRequest, m.GetProviderSchemaResponse],
  ValidateProviderConfig: [m.ValidateProviderConfigRequest, m.ValidateProviderConfigResponse],
  ValidateResourceConfig: [m.ValidateConfigRequest, m.DiagnosticsOnly],
  ValidateDataResourceConfig: [m.ValidateConfigRequest, m.DiagnosticsOnly],
  UpgradeResourceState: [m.UpgradeResourceStateRequest, m.UpgradeResourceStateResponse],
  ConfigureProvider: [m.ConfigureProviderRequest, m.DiagnosticsOnly],
  ReadResource: [m.ReadResourceRequest, m.ReadResourceResponse],
  PlanResourceChange: [m.PlanResourceChangeRequest, m.PlanResourceChangeResponse],
  ApplyResourceChange: [m.ApplyResourceChangeRequest, m.ApplyResourceChangeResponse],
  ImportResourceState: [m.ImportResourceStateRequest, m.ImportResourceStateResponse],
  MoveResourceState: [m.MoveResourceStateRequest, m.MoveResourceStateResponse],
  ReadDataSource: [m.ReadDataSourceRequest, m.ReadDataSourceResponse],
  GetFunctions: [m.GetFunctionsRequest, m.GetFunctionsResponse],
  StopProvider: [m.StopProviderRequest, m.StopProviderResponse],
} as const satisfies Record<string, readonly [MessageDescription, MessageDescription]>;

export type ProviderMethod = keyof typeof PROVIDER_METHODS;
export type ProviderRpcs = Readonly<Record<ProviderMethod, Rpc>>;

const serialize = (description: MessageDescription) => (value: WireMessage) =>
  Buffer.from(encodeMessage(description, value));
const deserialize = (description: MessageDescription) => (bytes: Buffer) => decodeMessage(description, bytes);

function unary(service: string, method: string, request: MessageDescription, response: MessageDescription) {
  return {
    path: `/${service}/${method}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: serialize(request),
    requestDeserialize: deserialize(request),
    responseSerialize: serialize(response),
    responseDeserialize: deserialize(response),
  };
}

function streaming(
  service: string,
  method: string,
  request: MessageDescription,
  response: MessageDescription,
  bidi: boolean,
) {
  return { ...unary(service, method, request, response), requestStream: bidi, responseStream: true };
}

function handleUnary(rpc: Rpc, onError: (method: string, error: unknown) => void, method: string) {
  return (
    call: grpc.ServerUnaryCall<WireMessage, WireMessage>,
    callback: grpc.sendUnaryData<WireMessage>,
  ) => {
    rpc(call.request).then(
      (response) => callback(null, response),
      (error: unknown) => {
        onError(method, error);
        callback({ code: grpc.status.INTERNAL, details: (error as Error).message ?? String(error) });
      },
    );
  };
}

export interface PluginServerOptions {
  readonly rpcs: ProviderRpcs;
  /** go-plugin's Shutdown: answer, then stop. */
  readonly onShutdown: () => void;
  /** An RPC threw instead of answering with diagnostics: logged, and Terraform gets the message. */
  readonly onError: (method: string, error: unknown) => void;
  /** TLS: our certificate and key, and the PEM of the one client certificate to accept. */
  readonly tls?: { readonly cert: string; readonly key: string; readonly clientCert: string } | undefined;
}

export interface PluginServer {
  readonly address: string;
  close(): Promise<void>;
}

export async function startPluginServer(options: PluginServerOptions): Promise<PluginServer> {
  const server = new grpc.Server({ "grpc.max_receive_message_length": 256 * 1024 * 1024 });

  const providerService: Record<string, grpc.MethodDefinition<WireMessage, WireMessage>> = {};
  const providerImpl: grpc.UntypedServiceImplementation = {};
  for (const [method, [request, response]] of Object.entries(PROVIDER_METHODS)) {
    providerService[method] = unary("tfplugin6.Provider", method, request, response);
    providerImpl[method] = handleUnary(options.rpcs[method as ProviderMethod], options.onError, method);
  }
  server.addService(providerService, providerImpl);

  server.addService(
    { Shutdown: unary("plugin.GRPCController", "Shutdown", m.Empty, m.Empty) },
    {
      Shutdown: (
        _call: grpc.ServerUnaryCall<WireMessage, WireMessage>,
        callback: grpc.sendUnaryData<WireMessage>,
      ) => {
        callback(null, {});
        setImmediate(options.onShutdown);
      },
    },
  );
  server.addService(
    { StreamStdio: streaming("plugin.GRPCStdio", "StreamStdio", m.Empty, m.StdioData, false) },
    {
      StreamStdio: (call: grpc.ServerWritableStream<WireMessage, WireMessage>) => {
        call.on("cancelled", () => call.end());
      },
    },
  );
  server.addService(
    { StartStream: streaming("plugin.GRPCBroker", "StartStream", m.Empty, m.Empty, true) },
    {
      StartStream: (call: grpc.ServerDuplexStream<WireMessage, WireMessage>) => {
        call.on("data", () => undefined);
        call.on("end", () => call.end());
      },
    },
  );
  server.addService(
    { Check: unary("grpc.health.v1.Health", "Check", m.HealthCheckRequest, m.HealthCheckResponse) },
    {
      Check: (
        _call: grpc.ServerUnaryCall<WireMessage, WireMessage>,
        callback: grpc.sendUnaryData<WireMessage>,
      ) => callback(null, { status: m.HEALTH_SERVING }),
    },
  );

  const credentials = options.tls
    ? grpc.ServerCredentials.createSsl(
        Buffer.from(options.tls.clientCert),
        [{ private_key: Buffer.from(options.tls.key), cert_chain: Buffer.from(options.tls.cert) }],
        true,
      )
    : grpc.ServerCredentials.createInsecure();
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
