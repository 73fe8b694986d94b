/**
 * `--api spec|sdx` and ROUTERJOBS_API through the built CLI: `jobs` and `submit` against the stand-in's sites
 * API (test/standin), and `apply` in the sdx profile against our service and against a stand-in whose spec job
 * list does not answer (so only the sites API can confirm the job).
 */
import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../src/client/index.js";
import { parseMarker } from "../../src/contract/attempt-marker.js";
import { runCli, startCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { declareJob } from "../helpers/declared-job.js";
import { scratchDir } from "../helpers/scratch.js";
import {
  ADMIN_TOKEN,
  ROUTER_A,
  startTestService,
  type TestService,
  TOKEN_A,
  writeServiceCa,
} from "../service/harness.js";
import { type StandIn, startStandIn } from "../standin/standin.js";

const TOKEN = "ak_live_cli+profile/9Zq2==";
/** Credentials of the newest edition's documented shapes: a console API key and an OAuth JWT. */
const CONSOLE_KEY = "alto_sk_cliK3yS3cr3tQ9zR2mXw7LkP0sT8v";
const OAUTH_JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjbGkiLCJleHAiOjE4OTM0NTYwMDB9.c2lnbmF0dXJlLWNsaQ";
let scratch: string;
beforeAll(() => {
  scratch = scratchDir("rj-cli-api-");
});

describe("--api and ROUTERJOBS_API against the stand-in's sites API", () => {
  const siteId = randomUUID();
  let standIn: StandIn;
  let env: Record<string, string>;
  let jobId: string;

  beforeAll(async () => {
    // The spec's job list does not answer (as on the new host): a spec-profile `jobs` would get a 404.
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [TOKEN, CONSOLE_KEY, OAUTH_JWT], sites: [siteId] }],
      tickMs: 600_000,
      rateLimitMax: 10_000,
      legacyJobList: false,
    });
    env = {
      ROUTERJOBS_URL: standIn.url,
      ROUTERJOBS_TOKEN: TOKEN,
      ROUTERJOBS_STATE_DIR: join(scratch, "state"),
      ROUTERJOBS_RATE_LIMIT: "1000/1s",
    };
    const client = new RouterJobsClient({
      baseUrl: standIn.url,
      token: TOKEN,
      api: "sdx",
      budgetDir: join(scratch, "state"),
      rateLimit: { count: 1000, windowMs: 1000 },
    });
    try {
      const { ack } = await client.submitJob(siteId, { description: "listed job", script: ":put 1" });
      jobId = ack.request_id;
    } finally {
      await client.close();
    }
  });
  afterAll(async () => standIn?.close());

  it("routerjobs jobs <router> --api sdx lists the sites API's jobs, state from the timestamps", async () => {
    const result = await runCli(["jobs", siteId, "--api", "sdx"], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [header, row] = result.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+STATUS\s+DESCRIPTION/);
    expect(row).toMatch(new RegExp(`^${jobId}\\s+pending\\s+listed job`));
  });

  it("ROUTERJOBS_API=sdx does the same, and --json shows every field without status or seq_id made up", async () => {
    const result = await runCli(["jobs", siteId, "--json"], { env: { ...env, ROUTERJOBS_API: "sdx" } });
    expect(result.code).toBe(0);
    const jobs = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(jobs).toEqual([
      expect.objectContaining({ id: jobId, status: "pending", should_backup: false, make_backup: false }),
    ]);
    expect(jobs[0]).not.toHaveProperty("seq_id");
  });

  it("without --api the spec profile asks /api/routers/{id}/jobs, which this service does not answer", async () => {
    const result = await runCli(["jobs", siteId], { env });
    expectOneErrorLine(result, 3, /404/, [TOKEN]);
  });

  it("jobs cancel <router> <job> --api sdx cancels a pending job; a started one is refused, said so, exit 3", async () => {
    const client = new RouterJobsClient({
      baseUrl: standIn.url,
      token: TOKEN,
      api: "sdx",
      budgetDir: join(scratch, "state"),
      rateLimit: { count: 1000, windowMs: 1000 },
    });
    try {
      const pending = (await client.submitJob(siteId, { description: "to cancel", script: ":put 2" })).ack;
      const cancelled = await runCli(["jobs", "cancel", siteId, pending.request_id, "--api", "sdx"], { env });
      expect([cancelled.code, cancelled.stderr]).toEqual([0, ""]);
      expect(cancelled.stdout).toBe(`cancelled job ${pending.request_id}: it will not run\n`);
      expect(standIn.job(pending.request_id)?.status).toBe("deleted");

      const done = (
        await client.submitJob(siteId, {
          description: "done at once",
          script: ":put 3",
          needs_acknowledgement: false,
        })
      ).ack;
      const refused = await runCli(["jobs", "cancel", siteId, done.request_id, "--api", "sdx"], { env });
      expectOneErrorLine(refused, 3, /was not cancelled: it has already started/, [TOKEN]);
      const spec = await runCli(["jobs", "cancel", siteId, done.request_id], { env });
      expectOneErrorLine(spec, 2, /the spec API cannot cancel a job; use --api sdx/, [TOKEN]);
    } finally {
      await client.close();
    }
  });

  it("a console API key (alto_sk_) or an OAuth JWT works as ROUTERJOBS_TOKEN, and a refused one is never shown", async () => {
    for (const token of [CONSOLE_KEY, OAUTH_JWT]) {
      const listed = await runCli(["jobs", siteId, "--api", "sdx", "--verbose"], {
        env: { ...env, ROUTERJOBS_TOKEN: token },
      });
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain("listed job");
      expect(listed.stdout + listed.stderr).not.toContain(token.slice(8));
    }
    const revoked = `${CONSOLE_KEY}revoked`;
    const refused = await runCli(["jobs", siteId, "--api", "sdx"], {
      env: { ...env, ROUTERJOBS_TOKEN: revoked },
    });
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).not.toContain(revoked.slice(8));
    const pasted = await runCli(["jobs", siteId, "--api", "sdx"], {
      env: { ...env, ROUTERJOBS_TOKEN: `${CONSOLE_KEY} x` },
    });
    expectOneErrorLine(
      pasted,
      2,
      /ROUTERJOBS_TOKEN cannot be a bearer token: it must not contain whitespace/,
      [CONSOLE_KEY],
    );
  });

  it("an unknown profile is a usage error naming the flag or the variable and both values", async () => {
    const flag = await runCli(["jobs", siteId, "--api", "rest"], { env });
    expectOneErrorLine(flag, 2, /--api must be spec .* or sdx .*\(got "rest"\)/, [TOKEN]);
    const variable = await runCli(["jobs", siteId], { env: { ...env, ROUTERJOBS_API: "v2" } });
    expectOneErrorLine(variable, 2, /ROUTERJOBS_API must be spec .* or sdx .*\(got "v2"\)/, [TOKEN]);
  });

  it("submit --api sdx sends the job; a notify_url or a 2-character description is refused before sending", async () => {
    const script = join(scratch, "identity.rsc");
    writeFileSync(script, "/system identity set name=cli\n");
    const sent = await runCli(["submit", siteId, "--script-file", script, "--api", "sdx", "--json"], { env });
    expect(sent.code).toBe(0);
    const ack = JSON.parse(sent.stdout) as Record<string, unknown>;
    expect(ack).toMatchObject({ target: siteId, notify_url: null });
    expect(ack.request_id).toBe(ack.job_id);

    const before = standIn.requests().length;
    const withUrl = await runCli(
      ["submit", siteId, "--script-file", script, "--api", "sdx", "--notify-url", "https://hooks.example/x"],
      { env },
    );
    expectOneErrorLine(withUrl, 2, /sdx jobs have no notify_url; use --api spec or poll/, [TOKEN]);
    const short = await runCli(["submit", siteId, "--script-file", script, "--description", "ab"], {
      env: { ...env, ROUTERJOBS_API: "sdx" },
    });
    expectOneErrorLine(short, 2, /X-Description .* 3 to 100 characters \(got 2\)/, [TOKEN]);
    expect(standIn.requests().length).toBe(before);
  });

  it("submit takes a script up to the profile's limit: 5000 characters on sdx, refused on spec naming both", async () => {
    // GIVEN a script of 5000 characters: over the spec's 2000, within the sites API's 10000
    const long = join(scratch, "long.rsc");
    writeFileSync(long, `:log info "${"x".repeat(5000 - 12)}"\n`);
    // WHEN it is submitted through the sites API, THEN it is sent
    const sent = await runCli(["submit", siteId, "--script-file", long, "--api", "sdx", "--json"], { env });
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
    // AND through the spec's API it is refused before sending, the message naming the profile and where it fits
    const before = standIn.requests().length;
    const refused = await runCli(["submit", siteId, "--script-file", long], { env });
    expectOneErrorLine(
      refused,
      2,
      /script must be at most 2000 characters on the spec API \(got 5000\); the sdx API takes up to 10000/,
      [TOKEN],
    );
    // AND over the sites API's own limit, ROUTERJOBS_API=sdx refuses it naming sdx
    writeFileSync(long, "x".repeat(10_001));
    const over = await runCli(["submit", siteId, "--script-file", long, "--no-check"], {
      env: { ...env, ROUTERJOBS_API: "sdx" },
    });
    expectOneErrorLine(over, 2, /script must be at most 10000 characters on the sdx API \(got 10001\)/, [
      TOKEN,
    ]);
    expect(standIn.requests().length).toBe(before);
  });

  it("backups <router> --api sdx lists the service's backups; backups get writes one's export; spec says it has none", async () => {
    // GIVEN a job that took a backup and ran
    const client = new RouterJobsClient({
      baseUrl: standIn.url,
      token: TOKEN,
      api: "sdx",
      budgetDir: join(scratch, "state"),
      rateLimit: { count: 1000, windowMs: 1000 },
    });
    let associated: string;
    try {
      const { ack } = await client.submitJob(siteId, {
        description: "backed up",
        script: ":log info cli-backup",
        make_backup: true,
        express_execute: true,
      });
      await standIn.waitForStatus(ack.request_id, "completed");
      associated = String((await client.getJob(siteId, ack.request_id)).associated_backup);
    } finally {
      await client.close();
    }
    const file = associated.split("/").at(-1) ?? "";
    // WHEN the backups are listed, THEN the job's is first, as a table and as JSON
    const table = await runCli(["backups", siteId, "--api", "sdx"], { env });
    expect(table.stderr).toBe("");
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^FILE\s+TAKEN\s+SIZE/);
    expect(table.stdout.split("\n")[1]).toContain(file);
    const json = await runCli(["backups", siteId, "--json"], { env: { ...env, ROUTERJOBS_API: "sdx" } });
    expect((JSON.parse(json.stdout) as { filename: string }[])[0]?.filename).toBe(file);
    // AND backups get writes its export to --out, or prints it
    const out = join(scratch, "backup.rsc");
    const got = await runCli(["backups", "get", siteId, file, "--api", "sdx", "--out", out], { env });
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(`wrote backup ${file} to ${out}`);
    const printed = await runCli(["backups", "get", siteId, file, "--api", "sdx"], { env });
    expect(readFileSync(out, "utf8")).toBe(printed.stdout);
    // AND an unknown file is the service's 404 (exit 3); the spec profile says it keeps none (exit 2)
    const unknown = await runCli(["backups", "get", siteId, "0.rsc", "--api", "sdx"], { env });
    expect(unknown.code).toBe(3);
    const spec = await runCli(["backups", siteId], { env });
    expectOneErrorLine(spec, 2, /the spec API keeps no backups of its own .*use --api sdx/, [TOKEN]);
  });

  it("backups --help and backups get --help name the profile, the file and an example", async () => {
    const list = await runCli(["backups", "--help"], { env });
    expect(list.code).toBe(0);
    for (const text of ["--api sdx", "associated_backup", "$ routerjobs backups get", "--json"])
      expect(list.stdout).toContain(text);
    const get = await runCli(["backups", "get", "--help"], { env });
    for (const text of ["<router> <file>", "--out <file>", "$ routerjobs backups get"])
      expect(get.stdout).toContain(text);
  });

  it("apply --api sdx submits through /sites and confirms by polling the sites API's list", async () => {
    const job = declareJob(siteId, "cli/standin/identity");
    const result = await runCli(["apply", "--api", "sdx"], {
      env: { ...env, ROUTERJOBS_JOB: JSON.stringify(job), ROUTERJOBS_STATE_DIR: join(scratch, "apply-1") },
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("routerjobs: cli/standin/identity: completed");
    const submissions = standIn.requests().filter((logged) => logged.method === "POST");
    expect(submissions.at(-1)?.path).toBe(`/sites/${siteId}/jobs`);
  });

  it("a job that declares api: sdx (the constructs' prop) is applied through /sites with no flag or variable", async () => {
    const job = { ...declareJob(siteId, "cli/standin/declared"), api: "sdx" };
    const result = await runCli(["apply"], {
      env: { ...env, ROUTERJOBS_JOB: JSON.stringify(job), ROUTERJOBS_STATE_DIR: join(scratch, "apply-3") },
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const submissions = standIn.requests().filter((logged) => logged.method === "POST");
    expect(submissions.at(-1)?.path).toBe(`/sites/${siteId}/jobs`);

    // AND --api overrides what the job declares: the spec profile posts where this service does not answer
    const before = standIn.requests().length;
    const overridden = await runCli(["apply", "--api", "spec"], {
      env: {
        ...env,
        ROUTERJOBS_JOB: JSON.stringify({ ...declareJob(siteId, "cli/standin/overridden"), api: "sdx" }),
        ROUTERJOBS_STATE_DIR: join(scratch, "apply-4"),
      },
      timeoutMs: 60_000,
    });
    expect(overridden.code).not.toBe(0);
    expect(
      standIn
        .requests()
        .slice(before)
        .some((logged) => logged.path.startsWith("/api/")),
    ).toBe(true);
  });

  it("a job whose api is neither spec nor sdx is refused naming the field", async () => {
    const result = await runCli(["apply"], {
      env: {
        ...env,
        ROUTERJOBS_JOB: JSON.stringify({ ...declareJob(siteId, "cli/standin/bad"), api: "rest" }),
      },
    });
    expectOneErrorLine(result, 2, /ROUTERJOBS_JOB is not a valid job: api: /, [TOKEN]);
  });
});

describe("routerjobs apply in the sdx profile against our service", () => {
  let svc: TestService;
  let caFile: string;
  beforeAll(async () => {
    svc = await startTestService({ rateLimit: { count: 10_000, windowMs: 1000 } });
    caFile = writeServiceCa(svc, scratch);
  });
  afterAll(async () => svc?.close());

  it("submits through the sites API, confirms by polling, and the router holds the change", async () => {
    // GIVEN a declared identity change and ROUTERJOBS_API=sdx
    const job = declareJob(ROUTER_A, "cli/service/identity");
    // WHEN routerjobs apply runs as a provisioner would
    const result = await runCli(["apply"], {
      env: {
        ROUTERJOBS_URL: svc.url,
        ROUTERJOBS_TOKEN: TOKEN_A,
        ROUTERJOBS_CA_FILE: caFile,
        ROUTERJOBS_API: "sdx",
        ROUTERJOBS_RATE_LIMIT: "1000/1s",
        ROUTERJOBS_STATE_DIR: join(scratch, "apply-2"),
        ROUTERJOBS_JOB: JSON.stringify(job),
      },
      timeoutMs: 60_000,
    });
    // THEN it completed, and the sites API lists one completed attempt of this change
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("routerjobs: cli/service/identity: completed");
    const listed = (await svc.call("GET", `/sites/${ROUTER_A}/jobs`)).body as Record<string, unknown>[];
    const attempts = listed.filter((item) => parseMarker(String(item.description)) !== undefined);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]?.completed_at).not.toBeNull();
    const [identity] = (
      await svc.call("POST", `/sites/${ROUTER_A}/commands/synchronous`, {
        body: { command: "/system/identity/print" },
      })
    ).body as Record<string, unknown>[];
    expect(identity?.name).toBe("cli-service-identity");
  });
});

describe("routerjobs apply in the sdx profile when the job is deleted", () => {
  let svc: TestService;
  let caFile: string;
  beforeAll(async () => {
    // No tick for an hour: the job waits pending until the test deletes it.
    svc = await startTestService({ rateLimit: { count: 10_000, windowMs: 1000 }, tickMs: 3_600_000 });
    caFile = writeServiceCa(svc, scratch, "service-ca-deleted.pem");
  });
  afterAll(async () => svc?.close());

  it("fails at once as deleted when the sites API stops listing it, instead of waiting out the timeout", async () => {
    // GIVEN an apply waiting on a pending, non-express job through the sites API (which hides deleted jobs)
    const job = { ...declareJob(ROUTER_A, "cli/service/deleted", false), timeout_ms: 600_000 };
    const apply = startCli(["apply"], {
      env: {
        ROUTERJOBS_URL: svc.url,
        ROUTERJOBS_TOKEN: TOKEN_A,
        ROUTERJOBS_CA_FILE: caFile,
        ROUTERJOBS_API: "sdx",
        ROUTERJOBS_RATE_LIMIT: "1000/1s",
        ROUTERJOBS_STATE_DIR: join(scratch, "apply-deleted"),
        ROUTERJOBS_JOB: JSON.stringify(job),
      },
    });
    try {
      await apply.printed(/(pending)/, "apply's first look");
      // WHEN an operator deletes the job
      const [listed] = (await svc.jobs(ROUTER_A)) as { id: string }[];
      const deleted = await svc.call("DELETE", `/admin/jobs/${listed?.id}`, { token: ADMIN_TOKEN });
      expect(deleted.status).toBeLessThan(300);
      // THEN apply ends with exit 1 naming the deletion, long before its 10-minute timeout
      expect(await apply.exited).toBe(1);
      const { stdout, stderr } = apply.output();
      expect(`${stdout}${stderr}`).toMatch(/deleted: the sites API no longer lists the job/);
    } finally {
      await apply.stop();
    }
  });
});
