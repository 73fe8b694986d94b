/**
 * curl, a REST client nobody here wrote, against `routerjobs router simulate --rest --api` spawned from the built
 * CLI: every verb of RouterOS's REST API, its refusals, and one router behind both faces (a change made over
 * REST is read over the API). curl trusts the certificate the ready line prints (`--cacert`), and reads the
 * password from a config file (`-K`), never from its command line. Without curl the tests skip with the reason,
 * except under CI=true, where they fail.
 */

import { type ChildProcess, execFile } from "node:child_process";
import { once } from "node:events";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterApiClient } from "../../../../src/routeros/api/client.js";
import { startSimulate } from "../../../helpers/device-process.js";
import { skipOrFail } from "../../../helpers/npm.js";
import { scratchDir } from "../../../helpers/scratch.js";

const CURL = "/usr/bin/curl";
const PASSWORD = "s3cret-rest";
const run = promisify(execFile);

interface Ready {
  readonly address: string;
  readonly tls: boolean;
  readonly rest: string;
  readonly fingerprint: string;
  readonly certificate: string;
}

let child: ChildProcess | undefined;
let ready: Ready;
let dir: string;

beforeAll(async () => {
  if (!existsSync(CURL)) return;
  dir = scratchDir("routerjobs-rest-curl-");
  writeFileSync(join(dir, "password"), `${PASSWORD}\n`, { mode: 0o600 });
  ({ child, ready } = await startSimulate<Ready>([
    "--api",
    "127.0.0.1:0",
    "--rest",
    "127.0.0.1:0",
    "--user",
    "ops",
    "--password-file",
    join(dir, "password"),
    "--name",
    "rest-edge",
    "--no-defaults",
  ]));
  writeFileSync(join(dir, "device.pem"), ready.certificate);
  writeFileSync(join(dir, "curl-ops"), `user = "ops:${PASSWORD}"\n`, { mode: 0o600 });
  writeFileSync(join(dir, "curl-wrong"), `user = "ops:not-the-password"\n`, { mode: 0o600 });
});

afterAll(async () => {
  if (!child) return;
  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  expect(code).toBe(0);
});

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** One curl request; the status comes from curl's `-w`, the body is JSON (or nothing for 204). */
async function curl(
  method: string,
  path: string,
  options: { body?: unknown; credentials?: "curl-ops" | "curl-wrong" } = {},
): Promise<Answer> {
  const args = [
    "-sS",
    "--cacert",
    join(dir, "device.pem"),
    "-K",
    join(dir, options.credentials ?? "curl-ops"),
    "-X",
    method,
    "-w",
    "\n%{http_code}",
  ];
  if (options.body !== undefined)
    args.push("-H", "content-type: application/json", "--data", JSON.stringify(options.body));
  // curl checks the certificate's name (its IP address) and chain, as it would a router's.
  args.push(`https://${ready.rest}/rest${path}`);
  const { stdout } = await run(CURL, args);
  const cut = stdout.lastIndexOf("\n");
  const text = stdout.slice(0, cut);
  return { status: Number(stdout.slice(cut + 1)), body: text === "" ? undefined : JSON.parse(text) };
}

/** A RouterOS API session with the same device, as the service's device back end would open one. */
const apiClient = () =>
  RouterApiClient.connect({
    host: "127.0.0.1",
    port: Number(ready.address.split(":")[1]),
    user: "ops",
    password: PASSWORD,
    allowPlaintext: true,
  });

const badRequest = (detail: string) => ({
  status: 400,
  body: { detail, error: 400, message: "Bad Request" },
});

describe("curl against `routerjobs router simulate --rest`", () => {
  it("prints the REST address and the certificate in its ready line", (context) => {
    if (!child) return skipOrFail(`${CURL} is missing (apt-get install -y curl)`, "curl", context);
    expect(ready.rest).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(ready.tls).toBe(false);
    expect(ready.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(ready.fingerprint).toMatch(/^sha256:/);
  });

  it("adds (PUT), prints with .proplist and a filter (GET), reads one, sets (PATCH), removes (DELETE)", async (context) => {
    if (!child) return skipOrFail(`${CURL} is missing (apt-get install -y curl)`, "curl", context);
    const added = await curl("PUT", "/ip/address", {
      body: { address: "10.20.0.1/24", interface: "ether2" },
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ address: "10.20.0.1/24", interface: "ether2", disabled: "false" });
    const id = (added.body as Record<string, string>)[".id"] ?? "";
    await curl("PUT", "/ip/address", { body: { address: "10.30.0.1/24", interface: "ether3" } });

    expect(await curl("GET", "/ip/address?.proplist=address,interface&interface=ether2")).toEqual({
      status: 200,
      body: [{ address: "10.20.0.1/24", interface: "ether2" }],
    });
    expect(await curl("GET", `/ip/address/${id}?.proplist=address`)).toEqual({
      status: 200,
      body: { address: "10.20.0.1/24" },
    });
    const patched = await curl("PATCH", `/ip/address/${id}`, { body: { comment: "from curl" } });
    expect(patched).toMatchObject({ status: 200, body: { ".id": id, comment: "from curl" } });
    expect(await curl("DELETE", `/ip/address/${id}`)).toEqual({ status: 204, body: undefined });
    expect(await curl("GET", `/ip/address/${id}`)).toEqual({
      status: 404,
      body: { error: 404, message: "Not Found" },
    });
  });

  it("runs commands with POST: print with .proplist and .query, a script, a refused command's 400 with its detail", async (context) => {
    if (!child) return skipOrFail(`${CURL} is missing (apt-get install -y curl)`, "curl", context);
    expect(await curl("POST", "/system/identity/print")).toEqual({
      status: 200,
      body: [{ name: "rest-edge" }],
    });
    await curl("PUT", "/ip/address", { body: { address: "10.40.0.1/24", interface: "ether4" } });
    expect(
      await curl("POST", "/ip/address/print", {
        body: { ".proplist": ["address"], ".query": ["interface=ether4"] },
      }),
    ).toEqual({ status: 200, body: [{ address: "10.40.0.1/24" }] });
    await curl("PUT", "/system/script", {
      body: { name: "tag-it", source: "/system identity set name=tagged" },
    });
    expect(await curl("POST", "/system/script/run", { body: { ".id": "tag-it" } })).toEqual({
      status: 200,
      body: [],
    });
    expect(await curl("GET", "/system/identity")).toEqual({ status: 200, body: { name: "tagged" } });
    expect(
      await curl("POST", "/ip/address/add", { body: { address: "10.40.0.1/24", interface: "ether4" } }),
    ).toEqual(badRequest("failure: already have such address"));
  });

  it("answers 401 for a wrong password and 400 naming the word of an unknown path", async (context) => {
    if (!child) return skipOrFail(`${CURL} is missing (apt-get install -y curl)`, "curl", context);
    expect(await curl("GET", "/system/identity", { credentials: "curl-wrong" })).toEqual({
      status: 401,
      body: { error: 401, message: "Unauthorized" },
    });
    expect(await curl("GET", "/ip/adress")).toEqual(badRequest("no such command or directory (adress)"));
  });

  it("is one router: a change made over REST is read over the API, and one made over the API over REST", async (context) => {
    if (!child) return skipOrFail(`${CURL} is missing (apt-get install -y curl)`, "curl", context);
    await curl("PUT", "/ip/address", {
      body: { address: "10.50.0.1/24", interface: "ether5", comment: "rest" },
    });
    const client = await apiClient();
    try {
      const reply = await client.command({
        command: "/ip/address/print",
        proplist: ["address", "comment"],
        queries: ["?interface=ether5"],
      });
      expect(reply.records).toEqual([{ address: "10.50.0.1/24", comment: "rest" }]);
      await client.command({ command: "/system/identity/set", attributes: { name: "set-over-api" } });
    } finally {
      client.close();
    }
    expect(await curl("GET", "/system/identity")).toEqual({ status: 200, body: { name: "set-over-api" } });
  });

  it("holds its firewall against REST clients: a drop of the www-ssl port resets them, the API stays", async (context) => {
    if (!child) return skipOrFail(`${CURL} is missing (apt-get install -y curl)`, "curl", context);
    // GIVEN a REST client that reaches the device; WHEN it adds a rule dropping itself on www-ssl's port
    const added = await curl("PUT", "/ip/firewall/filter", {
      body: {
        chain: "input",
        action: "drop",
        protocol: "tcp",
        "dst-port": "443",
        "src-address": "127.0.0.1",
      },
    });
    expect(added.status).toBe(200);
    // THEN its next request is reset before TLS (curl: 35, the handshake; 56, a reset while receiving)
    const cut = await curl("GET", "/system/identity").then(
      () => undefined,
      (error: { code?: number }) => error.code,
    );
    expect([35, 56]).toContain(cut);
    // AND the API, whose port the rule leaves open, still answers: through it the rule goes, and REST is back
    const client = await apiClient();
    try {
      const id = (added.body as Record<string, string>)[".id"] ?? "";
      await client.command({ command: "/ip/firewall/filter/remove", attributes: { ".id": id } });
    } finally {
      client.close();
    }
    expect(await curl("GET", "/system/identity")).toMatchObject({ status: 200 });
  });

  it("does not hang on the wrong protocol: plain HTTP at the REST port, HTTP at the API port", async (context) => {
    if (!child) return skipOrFail(`${CURL} is missing (apt-get install -y curl)`, "curl", context);
    // curl's own limit is far beyond what a close takes; reaching it would fail with exit code 28.
    for (const address of [ready.rest, ready.address]) {
      const failed = await run(CURL, [
        "-sS",
        "--max-time",
        "120",
        `http://${address}/rest/system/identity`,
      ]).then(
        () => undefined,
        (error: { code?: number }) => error.code,
      );
      // 52: empty reply; 56: connection reset. Either way closed, not timed out (28).
      expect([52, 56]).toContain(failed);
    }
  });
});
