/**
 * The provider block's receiver settings: none under wait_for = "poll" or, under "auto", without a receiver;
 * under "receiver" each missing piece named; a bad value named by its attribute before anything runs; the
 * notify URL (it holds the receiver's path secret) only from the environment.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVIDER_SCHEMA, receiverOf, validateProviderConfig } from "../../../src/deploy/provider/config.js";
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
