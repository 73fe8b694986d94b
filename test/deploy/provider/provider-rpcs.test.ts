/**
 * The Provider service over real gRPC with mutual TLS on loopback, as Terraform calls it: the schema, config
 * validation that names the attribute, plans (a create's computed values unknown, a script change a
 * replacement, a timeout change in place), and a client without Terraform's certificate refused. No service
 * is needed for any of these: nothing here applies.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDER_SCHEMA, validateProviderConfig } from "../../../src/deploy/provider/config.js";
import {
  decodeValue,
  encodeValue,
  type TfValue,
  UNKNOWN,
} from "../../../src/deploy/provider/protocol/dynamic-value.js";
import {
  type PluginServer,
  PROVIDER_METHODS,
  startPluginServer,
} from "../../../src/deploy/provider/protocol/server.js";
import {
  decodeMessage,
  encodeMessage,
  type WireMessage,
} from "../../../src/deploy/provider/protocol/wire.js";
import { providerRpcs } from "../../../src/deploy/provider/provider.js";
import { conform } from "../../../src/deploy/provider/schema.js";
import { SCRIPT_SCHEMA, scriptResource } from "../../../src/deploy/provider/script-resource.js";
import { generatePinnedTls, type TlsMaterial } from "../../../src/platform/tls/certificates.js";

const ROUTER = "a1000000-0000-4000-8000-0000000000aa";

describe("the Provider service over mutual TLS", () => {
  let server: PluginServer;
  let serverTls: TlsMaterial;
  let clientTls: TlsMaterial;
  let client: grpc.Client;

  beforeAll(async () => {
    [serverTls, clientTls] = await Promise.all([
      generatePinnedTls(["localhost"]),
      generatePinnedTls(["localhost"]),
    ]);
    server = await startPluginServer({
      rpcs: providerRpcs({
        schema: PROVIDER_SCHEMA,
        resources: [scriptResource()],
        validateConfig: validateProviderConfig,
        configure: async () => {
          throw new Error("not configured in this test");
        },
        stop: () => undefined,
      }),
      tls: { cert: serverTls.cert, key: serverTls.key, clientCert: clientTls.cert },
      onShutdown: () => undefined,
      onError: () => undefined,
    });
    client = connect(clientTls);
  });

  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  function connect(tls: TlsMaterial): grpc.Client {
    return new grpc.Client(
      server.address,
      grpc.credentials.createSsl(Buffer.from(serverTls.cert), Buffer.from(tls.key), Buffer.from(tls.cert)),
      { "grpc.ssl_target_name_override": "localhost" },
    );
  }

  function call(
    method: keyof typeof PROVIDER_METHODS,
    request: WireMessage,
    via = client,
  ): Promise<WireMessage> {
    const [requestType, responseType] = PROVIDER_METHODS[method];
    return new Promise((resolve, reject) =>
      via.makeUnaryRequest(
        `/tfplugin6.Provider/${method}`,
        (value: WireMessage) => Buffer.from(encodeMessage(requestType, value)),
        (bytes: Buffer) => decodeMessage(responseType, bytes),
        request,
        (error, response) => (error || !response ? reject(error) : resolve(response)),
      ),
    );
  }

  const dynamic = (value: TfValue) => ({ msgpack: encodeValue(value) });
  const config = (values: Record<string, TfValue>) => conform(SCRIPT_SCHEMA, values);
  const summaries = (response: WireMessage) =>
    (response.diagnostics as WireMessage[]).map((diagnostic) => diagnostic.summary);

  it("describes routerjobs_script with the token nowhere in the provider's schema", async () => {
    const response = await call("GetProviderSchema", {});
    const resources = response.resource_schemas as Record<string, WireMessage>;
    const block = resources.routerjobs_script?.block as WireMessage;
    const attributes = block.attributes as WireMessage[];
    const named = (name: string) => attributes.find((attribute) => attribute.name === name);
    expect(named("router_id")?.required).toBe(true);
    expect(named("job_id")?.computed).toBe(true);
    expect(new TextDecoder().decode(named("seq_id")?.type as Uint8Array)).toBe('"number"');
    expect(named("make_backup")).toMatchObject({ optional: true, computed: true });
    expect(named("notify_url")?.sensitive).toBe(true);
    const providerAttributes = ((response.provider as WireMessage).block as WireMessage)
      .attributes as WireMessage[];
    expect(providerAttributes.map((attribute) => attribute.name)).not.toContain("token");
  });

  it("names the attribute and the limit of a bad configuration", async () => {
    const bad = await call("ValidateResourceConfig", {
      type_name: "routerjobs_script",
      config: dynamic(config({ router_id: "edge-1", description: "d", script: "/x" })),
    });
    expect(summaries(bad).join()).toMatch(/^router_id: /);
    const timeout = await call("ValidateResourceConfig", {
      type_name: "routerjobs_script",
      config: dynamic(config({ router_id: ROUTER, description: "d", script: "/x", timeout: "soon" })),
    });
    expect(summaries(timeout).join()).toMatch(/timeout/);
    const provider = await call("ValidateProviderConfig", {
      config: dynamic(conform(PROVIDER_SCHEMA, { url: "ftp://x", rate_limit: "lots" })),
    });
    expect(summaries(provider)).toEqual([
      expect.stringMatching(/^url: /),
      expect.stringMatching(/^rate_limit: /),
    ]);
    const unknown = await call("ValidateResourceConfig", {
      type_name: "routerjobs_script",
      config: dynamic(config({ router_id: UNKNOWN, description: "d", script: "/x" })),
    });
    expect(summaries(unknown)).toEqual([]);
  });

  it("plans a create with its defaults and the job's fields unknown", async () => {
    const proposed = config({ router_id: ROUTER, description: "d", script: "/x" });
    const response = await call("PlanResourceChange", {
      type_name: "routerjobs_script",
      prior_state: dynamic(null),
      proposed_new_state: dynamic(proposed),
      config: dynamic(proposed),
    });
    const planned = decodeValue((response.planned_state as WireMessage).msgpack as Uint8Array);
    expect(planned).toMatchObject({ make_backup: true, express: true, needs_ack: true, timeout: "10m" });
    expect(planned).toMatchObject({ id: UNKNOWN, job_id: UNKNOWN, status: UNKNOWN });
  });

  it("replaces on a script change and updates a timeout in place", async () => {
    const prior = config({
      router_id: ROUTER,
      description: "d",
      script: "/x",
      make_backup: true,
      express: true,
      needs_ack: false,
      timeout: "10m",
      id: "i",
      job_id: "j",
      status: "completed",
    });
    const plan = (proposed: Record<string, TfValue>) =>
      call("PlanResourceChange", {
        type_name: "routerjobs_script",
        prior_state: dynamic(prior),
        proposed_new_state: dynamic({ ...prior, ...proposed }),
        config: dynamic({ ...prior, ...proposed }),
      });
    const replaced = await plan({ script: "/y" });
    expect(replaced.requires_replace).toEqual([
      { steps: [{ attribute_name: "script", element_key_string: "", element_key_int: 0 }] },
    ]);
    const inPlace = await plan({ timeout: "20m" });
    expect(inPlace.requires_replace).toEqual([]);
    const planned = decodeValue((inPlace.planned_state as WireMessage).msgpack as Uint8Array);
    expect(planned).toMatchObject({ timeout: "20m", job_id: "j", status: "completed" });
  });

  it("refuses a client that does not hold Terraform's certificate", async () => {
    const stranger = connect(await generatePinnedTls(["localhost"]));
    await expect(call("GetProviderSchema", {}, stranger)).rejects.toThrow();
    stranger.close();
  });
});
