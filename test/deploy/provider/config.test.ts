/**
 * The provider block's receiver settings: none under wait_for = "poll" or, under "auto", without a receiver;
 * under "receiver" each missing piece named; a bad value named by its attribute before anything runs; the
 * notify URL (it holds the receiver's path secret) only from the environment.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PROVIDER_SCHEMA,
  reachOf,
  receiverOf,
  validateProviderConfig,
} from "../../../src/deploy/provider/config.js";
import type { TfValue } from "../../../src/deploy/provider/protocol/dynamic-value.js";
import { conform } from "../../../src/deploy/provider/schema.js";

const config = (values: Record<string, TfValue>) => conform(PROVIDER_SCHEMA, values);
const RECEIVER = "https://127.0.0.1:8444";
const NOTIFY = "https://receiver.example/notify/path-secret";

describe("the provider's receiver settings", () => {
  let dir: string;
  let tokenFile: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-provider-config-"));
    tokenFile = join(dir, "reader-token");
    await writeFile(tokenFile, "reader-token-value\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("polls under wait_for = poll, and under auto when no receiver is set", async () => {
    const env = { ROUTERJOBS_RECEIVER_URL: RECEIVER, ROUTERJOBS_NOTIFY_URL: NOTIFY };
    expect(await receiverOf(config({ wait_for: "poll" }), env)).toBeUndefined();
    expect(await receiverOf(config({}), {})).toBeUndefined();
    expect(await receiverOf(config({ receiver_url: RECEIVER }), {})).toBeUndefined();
  });

  it("confirms through the receiver the block or the environment names", async () => {
    const receiver = await receiverOf(config({ receiver_url: RECEIVER, receiver_token_file: tokenFile }), {
      ROUTERJOBS_NOTIFY_URL: NOTIFY,
    });
    expect(receiver?.notifyUrl).toBe(NOTIFY);
    await receiver?.client.close();
  });

  it("names what wait_for = receiver lacks", async () => {
    await expect(receiverOf(config({ wait_for: "receiver" }), {})).rejects.toThrow(
      /receiver_url.*ROUTERJOBS_NOTIFY_URL/,
    );
    await expect(
      receiverOf(config({ wait_for: "receiver", receiver_url: RECEIVER }), { ROUTERJOBS_NOTIFY_URL: NOTIFY }),
    ).rejects.toThrow(/reader token: set receiver_token_file/);
    await expect(
      receiverOf(config({ receiver_url: RECEIVER, receiver_token_file: join(dir, "missing") }), {
        ROUTERJOBS_NOTIFY_URL: NOTIFY,
      }),
    ).rejects.toThrow(/^receiver_token_file: cannot read .*missing \(ENOENT\)$/);
  });

  it("names the attribute of a bad wait_for or receiver URL", () => {
    const problems = validateProviderConfig(config({ wait_for: "sometimes", receiver_url: "http://r:1" }));
    expect(problems.map((problem) => problem.summary)).toEqual([
      'wait_for: must be one of auto, receiver, poll (got "sometimes")',
      "receiver_url: must be an https:// URL (got http://r:1)",
    ]);
  });
});

describe("the provider's reach settings (the service's path to each router, checked in the plan)", () => {
  const ROUTER = "a1000000-0000-4000-8000-0000000000aa";

  it("checks the inbound path by default, to the router's learned address, and none with reach = off", () => {
    expect(reachOf(config({}), {})?.(ROUTER)).toEqual({ direction: "inbound", protocol: "tcp", port: 8729 });
    expect(reachOf(config({ reach: "off" }), {})).toBeUndefined();
    expect(reachOf(config({}), { ROUTERJOBS_REACH: "off" })).toBeUndefined();
    expect(reachOf(config({ reach: "outbound" }), {})?.(ROUTER)).toMatchObject({ direction: "outbound" });
  });

  it("takes the service's address, the port and each router's address from the block or the environment", () => {
    const reach = reachOf(
      config({ reach_port: 8728, router_addresses: { [ROUTER]: "10.0.0.1:8729@ether2" } }),
      { ROUTERJOBS_SERVICE_ADDRESS: "10.9.9.9" },
    );
    expect(reach?.(ROUTER)).toEqual({
      direction: "inbound",
      protocol: "tcp",
      port: 8729,
      source: "10.9.9.9",
      destination: "10.0.0.1",
      ingressPort: "ether2",
    });
    expect(reach?.("b1000000-0000-4000-8000-0000000000bb")).toMatchObject({ port: 8728 });
  });

  it("names the attribute of a bad reach setting before anything runs", () => {
    for (const [values, attribute, message] of [
      [{ reach: "sideways" }, "reach", /reach must be one of inbound, outbound, off/],
      [{ service_address: "jobs.example" }, "service_address", /must be an IPv4 address/],
      [{ reach_port: 70000 }, "reach_port", /reach_port must be a port, 1 to 65535/],
      [{ router_addresses: { [ROUTER]: "10.0.0.1:x" } }, "router_addresses", /port must be a port/],
    ] as const) {
      const problems = validateProviderConfig(config(values as Record<string, TfValue>));
      expect(problems).toHaveLength(1);
      expect(String(problems[0]?.summary)).toMatch(message);
      expect(problems[0]?.attribute).toEqual({ steps: [{ attribute_name: attribute }] });
    }
  });
});
