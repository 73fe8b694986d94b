import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLocalTls } from "../../src/platform/tls/certificates.js";
import {
  envelope,
  OTHER_ROUTER_ID,
  ROUTER_ID,
  type StandIn,
  startStandIn,
  TOKEN,
} from "../client/helpers/stand-in-service.js";
import { type CliResult, runCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { scratchDir } from "../helpers/scratch.js";

const SECRET = TOKEN.split(":")[2] as string;
let scratch: string;
let service: StandIn;
let env: Record<string, string>;

beforeAll(async () => {
  scratch = scratchDir("rj-cli-");
  service = await startStandIn();
  env = {
    ROUTERJOBS_URL: service.url,
    ROUTERJOBS_TOKEN: TOKEN,
    ROUTERJOBS_STATE_DIR: join(scratch, "state"),
    ROUTERJOBS_RATE_LIMIT: "1000/1s",
  };
});
afterAll(async () => {
  await service.close();
});

const cli = (args: string[], extra: Record<string, string> = {}, input?: string) =>
  runCli(args, { env: { ...env, ...extra }, ...(input === undefined ? {} : { input }) });
/** The last request that carried a body (submit reads the job list after it, to name the job). */
const lastPost = () => service.requests.filter((request) => request.method === "POST").at(-1);
const lastBody = () => JSON.parse(lastPost()?.body ?? "null");

/** A user error: the exit code, and exactly one `routerjobs:` line on stderr, without a stack trace. */
const expectOneLine = (result: CliResult, code: number, message: string | RegExp) =>
  expectOneErrorLine(result, code, message, [SECRET]);

describe("help and version", () => {
  it("prints the package version", async () => {
    const result = await cli(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: "0.1.0\n", stderr: "" });
  });

  it("explains commands, exit codes and examples", async () => {
    const top = await cli(["--help"]);
    expect(top.code).toBe(0);
    for (const text of ["exec", "submit", "jobs", "Exit codes:", "Examples:"])
      expect(top.stdout).toContain(text);
    const submit = await cli(["submit", "--help"]);
    for (const text of [
      "--script-file <file>",
      "--no-backup",
      "--no-ack",
      "--express",
      "ROUTERJOBS_TOKEN",
      "$ routerjobs submit",
    ]) {
      expect(submit.stdout).toContain(text);
    }
    expect(submit.stdout).not.toContain("--token <token>");
  });

  it("answers an unknown option or a missing argument with one line and exit 2", async () => {
    expectOneLine(
      await cli(["jobs", ROUTER_ID, "--bogus"]),
      2,
      "unknown option '--bogus' (see 'routerjobs jobs --help')",
    );
    expectOneLine(await cli(["exec"]), 2, "missing required argument 'router'");
    expectOneLine(
      await cli(["submit", ROUTER_ID]),
      2,
      "required option '--script-file <file>' not specified",
    );
  });
});

describe("connection settings", () => {
  it("requires a URL and a token, and refuses a token on the command line", async () => {
    expectOneLine(
      await cli(["jobs", ROUTER_ID], { ROUTERJOBS_URL: "" }),
      2,
      "no service URL: pass --url URL or set ROUTERJOBS_URL",
    );
    expectOneLine(
      await cli(["jobs", ROUTER_ID], { ROUTERJOBS_TOKEN: "" }),
      2,
      "no API token: set ROUTERJOBS_TOKEN or pass --token-file FILE",
    );
    expectOneLine(
      await cli(["jobs", ROUTER_ID, "--token", TOKEN]),
      2,
      /^routerjobs: --token is not accepted/,
    );
  });

  it("names the bad setting without echoing the token", async () => {
    expectOneLine(
      await cli(["jobs", ROUTER_ID], { ROUTERJOBS_TOKEN: `${TOKEN.slice(0, 10)} ${TOKEN.slice(10)}` }),
      2,
      "the token in ROUTERJOBS_TOKEN cannot be a bearer token: it must not contain whitespace or control characters (one at position 11)",
    );
    expectOneLine(
      await cli(["jobs", ROUTER_ID, "--url", "ftp://x"]),
      2,
      '--url must be an http:// or https:// URL (got "ftp://x")',
    );
    expectOneLine(
      await cli(["jobs", ROUTER_ID, "--rate-limit", "fast"]),
      2,
      '--rate-limit must look like COUNT/DURATION, like 60/1m (got "fast")',
    );
    expectOneLine(
      await cli(["jobs", ROUTER_ID], { ROUTERJOBS_TIMEOUT: "10" }),
      2,
      /^routerjobs: ROUTERJOBS_TIMEOUT must be a number followed by/,
    );
    expectOneLine(
      await cli(["jobs", ROUTER_ID, "--token-file", "/nonexistent"]),
      2,
      "--token-file: cannot read /nonexistent (ENOENT)",
    );
  });

  it("reads the token from a file and trusts a CA from --ca-file", async () => {
    const tls = await generateLocalTls();
    const secure = await startStandIn({ tls });
    writeFileSync(join(scratch, "token"), `${TOKEN}\n`);
    writeFileSync(join(scratch, "ca.pem"), tls.ca);
    const result = await cli(
      [
        "jobs",
        ROUTER_ID,
        "--url",
        secure.url,
        "--token-file",
        join(scratch, "token"),
        "--ca-file",
        join(scratch, "ca.pem"),
      ],
      {
        ROUTERJOBS_TOKEN: "",
      },
    );
    expect(result).toMatchObject({ code: 0, stdout: "(no jobs)\n" });
    expect(secure.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    await secure.close();
  });
});

describe("commands", () => {
  it("exec prints records as a table or JSON", async () => {
    // Records with a column of every kind (another service's numbers and booleans among them).
    const arp = {
      status: 200,
      body: {
        status: "success",
        data: [{ id: "*1", address: "10.0.0.1", interface: "ether1", dynamic: false, extra: 7 }],
      },
    };
    service.script(arp, arp);
    const table = await cli(["exec", ROUTER_ID, "/ip/arp/print", "?interface=ether1"]);
    expect(table.code).toBe(0);
    expect(table.stdout).toBe(
      "ID  ADDRESS   INTERFACE  DYNAMIC  EXTRA\n*1  10.0.0.1  ether1     false    7\n",
    );
    expect(lastBody()).toEqual({ command: "/ip/arp/print", parameters: "?interface=ether1" });
    const json = await cli(["exec", ROUTER_ID, "/ip/arp/print", "--json"]);
    expect(JSON.parse(json.stdout)).toEqual([
      { id: "*1", address: "10.0.0.1", interface: "ether1", dynamic: "false", extra: "7" },
    ]);
  });

  it("submit makes a backup by default and prints the acknowledgement", async () => {
    writeFileSync(join(scratch, "identity.rsc"), "/system identity set name=r1\n");
    const result = await cli(["submit", ROUTER_ID, "--script-file", join(scratch, "identity.rsc")]);
    expect(result.code).toBe(0);
    expect(lastBody()).toEqual({
      description: "identity.rsc",
      script: "/system identity set name=r1",
      make_backup: true,
      express_execute: false,
      needs_acknowledgement: true,
    });
    const key = lastPost()?.headers["idempotency-key"];
    expect(result.stdout).toContain(`submitted job to router ${ROUTER_ID}`);
    expect(result.stdout).toContain(`idempotency key: ${key}`);
    // The spec's acknowledgement names no job: the list is read once for the one with the key.
    expect(result.stdout).toMatch(/\n {2}job id: {10}[0-9a-f-]{36}\n {2}seq: {13}\d+\n/);
    expect(result.stdout).toContain(`follow it with: routerjobs jobs ${ROUTER_ID}\n`);
  });

  it("submit takes the script from stdin and honours every flag", async () => {
    const key = "3b241101-e2bb-4255-8caf-4136c566a962";
    const args = [
      "submit",
      ROUTER_ID,
      "--script-file",
      "-",
      "--description",
      "dns",
      "--no-backup",
      "--express",
      "--no-ack",
    ];
    const result = await cli(
      [...args, "--notify-url", "https://127.0.0.1:9/rj", "--idempotency-key", key, "--json"],
      {},
      "/ip dns set servers=10.0.0.53",
    );
    expect(result.code).toBe(0);
    expect(lastBody()).toEqual({
      description: "dns",
      script: "/ip dns set servers=10.0.0.53",
      make_backup: false,
      express_execute: true,
      needs_acknowledgement: false,
      notify_url: "https://127.0.0.1:9/rj",
    });
    expect(JSON.parse(result.stdout)).toMatchObject({ idempotency_key: key, target: ROUTER_ID });
  });

  it("submit refuses an over-long script before sending anything", async () => {
    writeFileSync(join(scratch, "long.rsc"), ":put 1;".repeat(300));
    const before = service.requests.length;
    expectOneLine(
      await cli(["submit", ROUTER_ID, "--script-file", join(scratch, "long.rsc")]),
      2,
      "script must be at most 2000 characters on the spec API (got 2100); the sdx API takes up to 10000",
    );
    expect(service.requests.length).toBe(before);
  });

  it("jobs prints seq, status, description and times", async () => {
    const result = await cli(["jobs", ROUTER_ID]);
    expect(result.code).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split("\n");
    expect(header?.split(/\s+/)).toEqual(["SEQ", "STATUS", "DESCRIPTION", "STARTED", "ENDED", "ERROR"]);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows[0]).toMatch(/^\d+\s+(pending|running|completed)\s+dns\s/);
    const json = JSON.parse((await cli(["jobs", ROUTER_ID, "--json"])).stdout);
    expect(json[0]).toMatchObject({ description: "dns", express_execute: true, make_backup: false });
  });
});

describe("failures map to exit codes", () => {
  it("exits 1 when the router refuses a command", async () => {
    expectOneLine(
      await cli(["exec", ROUTER_ID, "/ip/address/add", "=address=10.0.0.1/24 =interface=nosuch"]),
      1,
      "routerjobs: input does not match any value of interface (HTTP 400)",
    );
  });

  it("exits 3 when the service refuses, with the service's field details and a hint", async () => {
    expectOneLine(
      await cli(["jobs", ROUTER_ID], { ROUTERJOBS_TOKEN: TOKEN.replace(/.{4}$/, "zzzz") }),
      3,
      "(check ROUTERJOBS_TOKEN or --token-file)",
    );
    expectOneLine(
      await cli(["jobs", OTHER_ROUTER_ID]),
      3,
      `routerjobs: router ${OTHER_ROUTER_ID} does not exist or does not belong to the team of this API token (HTTP 404)`,
    );
    service.script({
      status: 422,
      body: envelope("invalid_request", "The request is invalid.", [{ field: "script", message: "bad" }]),
    });
    expectOneLine(
      await cli(["submit", ROUTER_ID, "--script-file", "-"], {}, ":put 1"),
      3,
      "The request is invalid. (HTTP 422); script: bad",
    );
  });

  it("exits 4 when the service cannot be reached", async () => {
    const gone = await startStandIn();
    await gone.close();
    // A deadline long enough for the client's retries of a refused connection: with 1 s, a loaded machine hit
    // the deadline first and the message named the deadline instead of the cause.
    expectOneLine(
      await cli(["jobs", ROUTER_ID, "--url", gone.url, "--timeout", "30s"]),
      4,
      `cannot reach the service at ${gone.url}`,
    );
  });

  it("adds code, status and request id with --verbose, still without a stack or the token", async () => {
    service.script({
      status: 404,
      body: envelope("router_not_found", "No such router."),
      headers: { "x-request-id": "req-42" },
    });
    const result = await cli(["--verbose", "jobs", ROUTER_ID]);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      "routerjobs: No such router. (HTTP 404)\nrouterjobs: code RJ_ERR_API, HTTP 404, api code router_not_found, request id req-42\n",
    );
    expect(result.stderr).not.toContain(SECRET);
  });
});
