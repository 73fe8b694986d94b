/**
 * The operator commands (`routerjobs service token|router|job|seed|status`) as an operator runs them: the built
 * CLI against a running `routerjobs service` process, each command's effect read back through the public API.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliProcess, type CliResult, runCli, startCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { HttpsSink } from "../helpers/https-sink.js";
import { scratchDir } from "../helpers/scratch.js";
import {
  apiCaller,
  eventually,
  type Loose,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  SEED,
  TEAM_A,
  type TestService,
  TOKEN_A,
  TOKEN_A2,
  TOKEN_B,
} from "../service/harness.js";

const TEAM_D = "d0000000-0000-4000-8000-000000000001";
const CUSTOMER_D = "dc000000-0000-4000-8000-000000000001";
const ROUTER_D2 = "d2000000-0000-4000-8000-000000000002";
const TEAM_E = "e0000000-0000-4000-8000-000000000001";
const TOKEN_E = `ee000000-0000-4000-8000-000000000001:${TEAM_E}:${"E5e4E3e2E1".repeat(6)}ee`;
const TOKEN_SHAPE = /^[0-9a-f-]{36}:[0-9a-f-]{36}:[A-Za-z0-9]{62}$/;
const secretOf = (token: string) => token.split(":")[2] as string;
const DEVICE_PASSWORD = "Kp4-device-password-never-shown-9";
const DEVICE_ROUTER = "de000000-0000-4000-8000-00000000000c";
const job = { description: "identity", script: "/system identity set name=from-job", express_execute: true };

// Each test spawns several CLI processes: on a busy two-core machine that takes a while.
describe("routerjobs service operator commands (built CLI, running service)", () => {
  let dir: string;
  let data: string;
  let service: CliProcess;
  let sink: HttpsSink;
  let dispatcher: Agent;
  let call: TestService["call"];
  /** Every operator command run, with the tokens `token create` printed: no secret may appear elsewhere. */
  const runs: CliResult[] = [];
  const created: string[] = [];

  async function admin(...args: string[]): Promise<CliResult> {
    const result = await runCli(["service", ...args, "--data", data]);
    runs.push(result);
    return result;
  }
  const json = (result: CliResult): Loose => {
    expect(result, result.stderr).toMatchObject({ code: 0, stderr: "" });
    return JSON.parse(result.stdout);
  };
  const jobs = async (routerId: string, token = TOKEN_A): Promise<Loose[]> => {
    const answer = await call("GET", `/api/routers/${routerId}/jobs`, { token });
    expect(answer.status).toBe(200);
    return answer.body.data;
  };
  const submit = async (routerId: string, token: string, body: Record<string, unknown>) => {
    const answer = await call("POST", `/api/asynchronous/${routerId}`, { token, body });
    expect(answer.status).toBe(202);
    const key = answer.body.data.idempotency_key;
    return (await jobs(routerId, token)).find((item) => item.idempotency_key === key);
  };

  beforeAll(async () => {
    dir = scratchDir("rj-service-admin-");
    data = join(dir, "data");
    sink = await HttpsSink.start();
    writeFileSync(join(dir, "sink-ca.pem"), sink.ca);
    writeFileSync(
      join(dir, "start-seed.json"),
      JSON.stringify({
        teams: [
          {
            id: TEAM_A,
            tokens: [TOKEN_A],
            routers: [
              { id: ROUTER_A, name: "edge-a" },
              { id: ROUTER_A2, name: "edge-a2" },
            ],
          },
        ],
      }),
    );
    service = startCli([
      "service",
      "--listen",
      "127.0.0.1:0",
      "--data",
      data,
      "--seed",
      join(dir, "start-seed.json"),
      "--tls-generate",
      "--tick",
      "50ms",
      "--notify-allow",
      "127.0.0.1",
      "--notify-ca-file",
      join(dir, "sink-ca.pem"),
      // The tests poll the job list while they wait: not at the spec's 60 a minute, which a wait of over 1.5 s
      // on a loaded machine would spend, answering 429 instead of the state awaited.
      "--rate-limit",
      "10000/1s",
      // Every request is logged: the last test reads the log for secrets.
      "--log-level",
      "info",
    ]);
    const url = await service.printed(/listening on (\S+)/, "the service");
    dispatcher = new Agent({ connect: { ca: readFileSync(join(data, "tls-ca.pem"), "utf8") } });
    call = apiCaller(url, dispatcher);
  });
  afterAll(async () => {
    await service?.stop();
    await dispatcher?.close();
    await sink?.close();
  });

  it("--help of each command lists its arguments and options", async () => {
    const common = ["--data <dir>", "--url <url>", "--ca-file <file>"];
    const cases: [string[], string[]][] = [
      [
        ["token", "create"],
        ["--team <uuid>", "--customer <uuid>"],
      ],
      [["token", "revoke"], ["<token-id>"]],
      [
        ["router", "add"],
        [
          "--team <uuid>",
          "--name <name>",
          "--id <uuid>",
          "--address <host[:port]>",
          "--user <user>",
          "--password-file <file>",
          "--tls-fingerprint <sha256:..>",
          "--tls-ca <file>",
          "--plaintext",
          "--binary-backup",
        ],
      ],
      [["router", "show"], ["<router-id>"]],
      [["router", "forget-device"], ["<router-id>"]],
      [["router", "remove"], ["<router-id>"]],
      [["router", "offline"], ["<router-id>"]],
      [["router", "online"], ["<router-id>"]],
      [["job", "delete"], ["<job-id>"]],
      [["seed"], ["<file>"]],
      [["status"], []],
    ];
    for (const [command, options] of cases) {
      const help = await runCli(["service", ...command, "--help"]);
      expect(help.code).toBe(0);
      for (const text of [...options, ...common]) expect(help.stdout, command.join(" ")).toContain(text);
    }
    const parent = await runCli(["service", "--help"]);
    for (const sub of ["token", "router", "job", "seed", "status"]) {
      expect(parent.stdout).toMatch(new RegExp(`^\\s+${sub}\\b`, "m"));
    }
  });

  let tokenD: string;
  let otherTokenD: string;
  let routerD: string;

  it("token create prints the token once and it works; revoke makes it 401 on every endpoint", async () => {
    const first = await admin("token", "create", "--team", TEAM_D, "--customer", CUSTOMER_D);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout.endsWith("\n")).toBe(true);
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    tokenD = lines[0] as string;
    expect(tokenD).toMatch(TOKEN_SHAPE);
    expect(tokenD.split(":")[1]).toBe(TEAM_D);
    otherTokenD = (await admin("token", "create", "--team", TEAM_D)).stdout.trim();
    created.push(tokenD, otherTokenD);
    expect(otherTokenD).not.toBe(tokenD);

    const added = await admin("router", "add", "--team", TEAM_D, "--name", "branch-1");
    expect(added).toMatchObject({ code: 0, stderr: "" });
    routerD = added.stdout.trim();
    expect(routerD).toMatch(/^[0-9a-f-]{36}$/);
    expect((await admin("router", "add", "--team", TEAM_D, "--name", "b2", "--id", ROUTER_D2)).stdout).toBe(
      `${ROUTER_D2}\n`,
    );
    expect(await jobs(routerD, tokenD)).toEqual([]);
    const sync = await call("POST", `/api/synchronous/${routerD}`, {
      token: tokenD,
      body: { command: "/system/identity/print" },
    });
    expect(sync.status).toBe(200);

    const [tokenId] = tokenD.split(":") as [string];
    expect(json(await admin("token", "revoke", tokenId))).toEqual({ token_id: tokenId, revoked: true });
    const refused = [
      await call("GET", `/api/routers/${routerD}/jobs`, { token: tokenD }),
      await call("POST", `/api/synchronous/${routerD}`, {
        token: tokenD,
        body: { command: "/system/identity/print" },
      }),
      await call("POST", `/api/asynchronous/${routerD}`, { token: tokenD, body: job }),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(401);
      expect(answer.headers["www-authenticate"]).toMatch(/^Bearer /);
      expect(answer.body).toEqual({
        status: "error",
        error: {
          code: "unauthenticated",
          message: "the API token is unknown or revoked",
          request_id: answer.headers["x-request-id"],
        },
      });
    }
    // The refused submission made no job; the team's other token still works.
    expect(await jobs(routerD, otherTokenD)).toEqual([]);

    expectOneErrorLine(
      await admin("token", "revoke", tokenId),
      3,
      /refused: token does not exist \(HTTP 404\)/,
    );
    // A whole token would put its secret in the URL, and so in the service's log: refused before sending.
    expectOneErrorLine(await admin("token", "revoke", otherTokenD), 2, /takes the token id/, [
      secretOf(otherTokenD),
    ]);
    expect(await jobs(routerD, otherTokenD)).toEqual([]);
  });

  it("router add refuses another team's router id, and that router stays its team's", async () => {
    expectOneErrorLine(
      await admin("router", "add", "--team", TEAM_D, "--name", "stolen", "--id", ROUTER_A),
      3,
      new RegExp(`refused: router ${ROUTER_A} belongs to another team or was removed \\(HTTP 422\\)`),
    );
    expect((await call("GET", `/api/routers/${ROUTER_A}/jobs`, { token: otherTokenD })).status).toBe(404);
    await jobs(ROUTER_A);
  });

  it("router offline keeps a submitted job pending and sync answers 502; online runs it", async () => {
    expect(json(await admin("router", "offline", ROUTER_A2))).toEqual({ id: ROUTER_A2, online: false });
    const pending = await submit(ROUTER_A2, TOKEN_A, job);
    const sync = await call("POST", `/api/synchronous/${ROUTER_A2}`, {
      body: { command: "/system/identity/print" },
    });
    expect(sync.status).toBe(502);
    expect(sync.body.error.code).toBe("router_unreachable");
    expect((await jobs(ROUTER_A2)).find((item) => item.id === pending.id).status).toBe("pending");

    // The job waits out the whole offline spell (the scheduler ticks every 50 ms meanwhile): the service's own
    // record says it started only after the router was brought back online.
    const onlineAt = Date.now();
    expect(json(await admin("router", "online", ROUTER_A2))).toEqual({ id: ROUTER_A2, online: true });
    const ran = await eventually(async () => {
      const item = (await jobs(ROUTER_A2)).find((entry) => entry.id === pending.id);
      return item.status === "completed" ? item : undefined;
    }, 120_000);
    expect(Date.parse(ran.started_at)).toBeGreaterThanOrEqual(onlineAt);

    const unknown = "ffffffff-0000-4000-8000-000000000000";
    expectOneErrorLine(
      await admin("router", "offline", unknown),
      3,
      /refused: router does not exist \(HTTP 404\)/,
    );
    expectOneErrorLine(await admin("router", "online", "edge-a2"), 3, /router_id: must be a lowercase UUID/);
  });

  it("job delete: a pending job becomes deleted, is notified, and never runs", async () => {
    await admin("router", "offline", ROUTER_A2);
    const pending = await submit(ROUTER_A2, TOKEN_A, { ...job, notify_url: `${sink.url}/hook` });
    expect(json(await admin("job", "delete", pending.id))).toEqual({ id: pending.id, status: "deleted" });
    await admin("router", "online", ROUTER_A2);
    await sink.waitFor(() => sink.statuses(pending.id).includes("deleted"), 120_000);
    // A job queued after it runs once the router is online: the scheduler has passed the deleted job, which
    // comes first in the router's queue, and left it alone.
    const later = await submit(ROUTER_A2, TOKEN_A, { ...job, description: "after the deleted one" });
    await eventually(async () => {
      const item = (await jobs(ROUTER_A2)).find((entry) => entry.id === later.id);
      return item.status === "completed" ? item : undefined;
    }, 120_000);
    const deleted = (await jobs(ROUTER_A2)).find((item) => item.id === pending.id);
    expect(deleted).toMatchObject({ status: "deleted", started_at: null, completed_at: null });
    expect(Date.parse(deleted.deleted_at)).not.toBeNaN();
    expect(sink.statuses(pending.id)).toEqual(["deleted"]);

    expectOneErrorLine(
      await admin("job", "delete", pending.id),
      3,
      /refused: a job that is not yet completed, failed or deleted.*\(HTTP 404\)/,
    );
    const status = json(await admin("status"));
    expect(status.jobs).toMatchObject({ deleted: 1, completed: 2 });
    expect(status.outbox).toMatchObject({ abandoned: 0 });
  });

  it("router remove: its open jobs become deleted (notified) and the router answers 404", async () => {
    await admin("router", "offline", routerD);
    const pending = await submit(routerD, otherTokenD, { ...job, notify_url: `${sink.url}/hook` });
    expect(json(await admin("router", "remove", routerD))).toEqual({ id: routerD, deleted_jobs: 1 });
    await sink.waitFor(() => sink.statuses(pending.id).includes("deleted"), 120_000);
    const answers = [
      await call("GET", `/api/routers/${routerD}/jobs`, { token: otherTokenD }),
      await call("POST", `/api/synchronous/${routerD}`, {
        token: otherTokenD,
        body: { command: "/system/identity/print" },
      }),
      await call("POST", `/api/asynchronous/${routerD}`, { token: otherTokenD, body: job }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("router_not_found");
    }
    // The team's other router is untouched.
    expect(await jobs(ROUTER_D2, otherTokenD)).toEqual([]);
    expectOneErrorLine(
      await admin("router", "remove", routerD),
      3,
      /refused: router does not exist \(HTTP 404\)/,
    );
    expectOneErrorLine(
      await admin("router", "add", "--team", TEAM_D, "--name", "again", "--id", routerD),
      3,
      /was removed/,
    );
  });

  it("seed FILE creates the teams, tokens and routers it names, idempotently", async () => {
    expect((await call("GET", `/api/routers/${ROUTER_B}/jobs`, { token: TOKEN_B })).status).toBe(401);
    const file = join(dir, "seed.json");
    writeFileSync(file, JSON.stringify(SEED));
    const expected = {
      teams: 2,
      tokens: 3,
      routers: [
        { id: ROUTER_A, name: "edge-a" },
        { id: ROUTER_A2, name: "edge-a2" },
        { id: ROUTER_B, name: "edge-b" },
      ],
    };
    expect(json(await admin("seed", file))).toEqual(expected);
    expect(json(await admin("seed", file))).toEqual(expected);
    expect(await jobs(ROUTER_B, TOKEN_B)).toEqual([]);
    await jobs(ROUTER_A, TOKEN_A2);
    expect((await call("GET", `/api/routers/${ROUTER_A}/jobs`, { token: TOKEN_B })).status).toBe(404);
    // The team's signing secret came with the seed: its notifications are signed.
    const signed = await submit(ROUTER_B, TOKEN_B, { ...job, notify_url: `${sink.url}/hook` });
    await sink.waitFor(() => sink.statuses(signed.id).includes("completed"), 120_000);
    for (const item of sink.received.filter((entry) => entry.body.job_id === signed.id)) {
      expect(item.headers["webhook-signature"]).toMatch(/^v1,/);
    }
  });

  it("a bad seed file: exit 2, one line naming the field and the limit, and nothing is sent", async () => {
    const seedRequests = () => service.output().stdout.split("/admin/seed").length;
    const before = seedRequests();
    const team = (extra: Record<string, unknown>) => ({ teams: [{ id: TEAM_E, ...extra }] });
    const short = TOKEN_E.slice(0, -1);
    const foreign = TOKEN_E.replace(TEAM_E, TEAM_A);
    const cases: [string, RegExp][] = [
      ["{", /bad-0\.json is not valid JSON/],
      [JSON.stringify({ teams: [{ id: "team-e" }] }), /teams\.0\.id: must be a lowercase UUID/],
      [
        JSON.stringify(team({ routers: [{ id: ROUTER_D2, name: "n".repeat(101) }] })),
        /teams\.0\.routers\.0\.name: .*100/,
      ],
      [
        JSON.stringify(team({ tokens: [short] })),
        /teams\.0\.tokens\.0: last part must be exactly 62 characters \(got 61\)/,
      ],
      [JSON.stringify(team({ tokens: [foreign] })), /teams\.0\.tokens\.0: .*this team's id/],
      [JSON.stringify(team({ colour: "blue" })), /teams\.0: .*colour/],
    ];
    for (const [index, [text, message]] of cases.entries()) {
      const file = join(dir, `bad-${index}.json`);
      writeFileSync(file, text);
      expectOneErrorLine(await admin("seed", file), 2, message, [secretOf(TOKEN_E)]);
    }
    expectOneErrorLine(await admin("seed", join(dir, "missing.json")), 2, /cannot read the seed file/);
    expect(seedRequests()).toBe(before);
    expect((await call("GET", `/api/routers/${ROUTER_A}/jobs`, { token: TOKEN_E })).status).toBe(401);
  });

  it("a seed that conflicts with the service's data is refused whole (exit 3, 422), not a 500", async () => {
    const file = join(dir, "conflict.json");
    writeFileSync(
      file,
      JSON.stringify({ teams: [{ id: TEAM_E, tokens: [TOKEN_E], routers: [{ id: ROUTER_A, name: "x" }] }] }),
    );
    expectOneErrorLine(
      await admin("seed", file),
      3,
      new RegExp(`refused: seed: router ${ROUTER_A} belongs to another team.*\\(HTTP 422\\)`),
      [secretOf(TOKEN_E)],
    );
    // One transaction: the token that came before the conflict in the file was not created either.
    expect((await call("GET", `/api/routers/${ROUTER_A}/jobs`, { token: TOKEN_E })).status).toBe(401);
    await jobs(ROUTER_A);
  });

  it("router add --address --password-file: a device router, its password from the file only", async () => {
    const passwordFile = join(dir, "edge.password");
    writeFileSync(passwordFile, `${DEVICE_PASSWORD}\n`, { mode: 0o600 });
    const fingerprint = `sha256:${"5A:".repeat(31)}5A`;
    const args = ["router", "add", "--team", TEAM_A, "--name", "edge-device", "--id", DEVICE_ROUTER];
    const device = ["--address", "192.0.2.30:18729", "--user", "routerjobs", "--password-file", passwordFile];
    const added = await admin(...args, ...device, "--tls-fingerprint", fingerprint);
    expect(added).toMatchObject({ code: 0, stderr: "", stdout: `${DEVICE_ROUTER}\n` });
    expect(json(await admin("router", "show", DEVICE_ROUTER))).toEqual({
      id: DEVICE_ROUTER,
      team_id: TEAM_A,
      name: "edge-device",
      online: true,
      device: {
        host: "192.0.2.30",
        port: 18729,
        user: "routerjobs",
        transport: "tls",
        tls_fingerprint: fingerprint,
      },
    });

    const plain = await admin(
      ...args,
      "--address",
      "[::1]",
      "--user",
      "u",
      "--password-file",
      passwordFile,
      "--plaintext",
    );
    expect(plain.code).toBe(0);
    expect(plain.stderr).toMatch(
      /^routerjobs: warning: --plaintext: .*password crosses the network in clear text/,
    );
    expect(json(await admin("router", "show", DEVICE_ROUTER)).device).toEqual({
      host: "::1",
      port: 8728,
      user: "u",
      transport: "plaintext",
    });

    const caFile = join(dir, "router-ca.pem");
    writeFileSync(caFile, readFileSync(join(data, "tls-ca.pem")));
    expect((await admin(...args, ...device, "--tls-ca", caFile)).code).toBe(0);
    expect(json(await admin("router", "show", DEVICE_ROUTER)).device.tls_ca).toBe("configured");
    // --transport rest: driven over the device's REST API; port 443 by default; router show says www-ssl
    const rest = ["--address", "192.0.2.31", "--user", "routerjobs", "--password-file", passwordFile];
    expect(
      (await admin(...args, ...rest, "--tls-fingerprint", fingerprint, "--transport", "rest")).code,
    ).toBe(0);
    expect(json(await admin("router", "show", DEVICE_ROUTER)).device).toMatchObject({
      port: 443,
      transport: "tls",
      service: "www-ssl",
    });
    const badTransport = await admin(
      ...args,
      ...rest,
      "--tls-fingerprint",
      fingerprint,
      "--transport",
      "ssh2",
    );
    expect(badTransport).toMatchObject({ code: 2, stdout: "" });
    // --transport ssh: the console over SSH, port 22 by default, the host key pinned; router show says ssh
    const hostKey = `SHA256:${"b".repeat(43)}`;
    expect((await admin(...args, ...rest, "--transport", "ssh", "--ssh-host-key", hostKey)).code).toBe(0);
    expect(json(await admin("router", "show", DEVICE_ROUTER)).device).toMatchObject({
      port: 22,
      transport: "ssh",
      service: "ssh",
      ssh_host_key: hostKey,
    });
    const sshWithoutKey = await admin(...args, ...rest, "--transport", "ssh");
    expect(sshWithoutKey).toMatchObject({ code: 2, stdout: "" });
    expect(sshWithoutKey.stderr).toMatch(/--transport ssh needs --ssh-host-key SHA256:/);
    expect(badTransport.stderr).toMatch(/--transport must be api, rest or ssh \(got "ssh2"\)/);
    // --binary-backup: the job's backup is also a binary backup; router show says so
    expect((await admin(...args, ...device, "--tls-ca", caFile, "--binary-backup")).code).toBe(0);
    expect(json(await admin("router", "show", DEVICE_ROUTER)).device).toMatchObject({
      tls_ca: "configured",
      binary_backup: true,
    });

    // Refused before anything is sent (exit 2), or by the service (exit 3), naming the flag or the field.
    const refusals: [string[], number, RegExp][] = [
      [
        [...args, "--address", "h", "--user", "u", "--tls-fingerprint", fingerprint],
        2,
        /needs --password-file/,
      ],
      [[...args, ...device], 2, /exactly one of --tls-fingerprint .* or --tls-ca/],
      [[...args, ...device, "--tls-fingerprint", fingerprint, "--tls-ca", caFile], 2, /exactly one of/],
      [[...args, ...device, "--plaintext", "--tls-ca", caFile], 2, /--plaintext uses no TLS/],
      [[...args, "--user", "u", "--password-file", passwordFile], 2, /need --address/],
      [[...args, "--binary-backup"], 2, /--binary-backup and --transport need --address/],
      [
        [...args, ...device.slice(0, 4), "--password-file", join(dir, "none"), "--plaintext"],
        2,
        /--password-file: cannot read .*none: ENOENT/,
      ],
      [
        [...args, "--address", "h:99999", "--user", "u", "--password-file", passwordFile, "--plaintext"],
        2,
        /port must be 1 to 65535/,
      ],
      [
        [...args, ...device, "--tls-fingerprint", "sha1:00"],
        3,
        /refused: .*\(HTTP 422\); device\.tls_fingerprint: tls_fingerprint must be sha256:/,
      ],
    ];
    for (const [argv, code, message] of refusals)
      expectOneErrorLine(await admin(...argv), code, message, [DEVICE_PASSWORD]);

    // A seed file names the password file relative to itself.
    mkdirSync(join(dir, "seeds"), { recursive: true });
    writeFileSync(join(dir, "seeds", "edge.password"), DEVICE_PASSWORD);
    const seedFile = join(dir, "seeds", "devices.json");
    const seedDevice = {
      host: "edge.example.net",
      user: "api",
      password_file: "edge.password",
      plaintext: true,
    };
    writeFileSync(
      seedFile,
      JSON.stringify({
        teams: [{ id: TEAM_A, routers: [{ id: DEVICE_ROUTER, name: "seeded", device: seedDevice }] }],
      }),
    );
    expect(json(await admin("seed", seedFile)).routers).toEqual([
      {
        id: DEVICE_ROUTER,
        name: "seeded",
        device: { host: "edge.example.net", port: 8728, user: "api", transport: "plaintext" },
      },
    ]);
    writeFileSync(
      seedFile,
      JSON.stringify({
        teams: [
          {
            id: TEAM_A,
            routers: [{ id: DEVICE_ROUTER, name: "s", device: { ...seedDevice, password: DEVICE_PASSWORD } }],
          },
        ],
      }),
    );
    expectOneErrorLine(await admin("seed", seedFile), 2, /device: a seed file names password_file/, [
      DEVICE_PASSWORD,
    ]);
    writeFileSync(
      seedFile,
      JSON.stringify({
        teams: [
          {
            id: TEAM_A,
            routers: [{ id: DEVICE_ROUTER, name: "s", device: { ...seedDevice, password_file: "gone" } }],
          },
        ],
      }),
    );
    expectOneErrorLine(
      await admin("seed", seedFile),
      2,
      /device\.password_file: cannot read .*seeds\/gone: ENOENT/,
    );

    expect(json(await admin("router", "forget-device", DEVICE_ROUTER))).toEqual({
      id: DEVICE_ROUTER,
      device: null,
    });
    // The router is simulated again: it answers through the public API.
    const sync = await call("POST", `/api/synchronous/${DEVICE_ROUTER}`, {
      body: { command: "/system/identity/print" },
    });
    expect(sync.status).toBe(200);
  });

  it("no secret reaches the service's log or any command's output, except the one print of token create", async () => {
    const adminToken = readFileSync(join(data, "admin-token"), "utf8").trim();
    const secrets = [TOKEN_A, TOKEN_A2, TOKEN_B, TOKEN_E, ...created].map(secretOf);
    const log = service.output();
    for (const secret of [adminToken, DEVICE_PASSWORD, ...secrets]) {
      expect(log.stdout + log.stderr).not.toContain(secret);
      for (const result of runs) {
        expect(result.stderr).not.toContain(secret);
        if (!created.includes(result.stdout.trim())) expect(result.stdout).not.toContain(secret);
      }
    }
    // The check can fail: the log holds the requests these commands made.
    expect(log.stdout).toContain("/admin/tokens");
  });

  it("without a running service: exit 2 without its files, exit 4 when it does not answer", async () => {
    expectOneErrorLine(
      await runCli(["service", "status", "--data", join(dir, "nowhere")]),
      2,
      /cannot read the admin token .*nowhere.*is the service running with this --data\?/,
    );
    await service.stop();
    expectOneErrorLine(await admin("status"), 4, /cannot reach the service at https:\/\/127\.0\.0\.1:\d+/);
  });
});
