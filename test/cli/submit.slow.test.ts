/**
 * `routerjobs submit` against the service: the script is checked as synth checks it before anything is sent
 * (`--no-check` skips it), and the acknowledgement names the job (id and number) and how to follow it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { scratchDir } from "../helpers/scratch.js";
import { ROUTER_A, startTestService, type TestService, TOKEN_A, writeServiceCa } from "../service/harness.js";

const SECRET = TOKEN_A.split(":")[2] as string;

describe("routerjobs submit", () => {
  let service: TestService;
  let scratch: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    scratch = scratchDir("rj-submit-");
    service = await startTestService({ rateLimit: { count: 10_000, windowMs: 1000 }, tickMs: 3_600_000 });
    env = {
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: writeServiceCa(service, scratch),
      ROUTERJOBS_STATE_DIR: join(scratch, "state"),
      ROUTERJOBS_RATE_LIMIT: "10000/1s",
    };
  });
  afterAll(async () => service?.close());

  const submit = (script: string, ...flags: string[]) => {
    const file = join(scratch, "job.rsc");
    writeFileSync(file, script);
    return runCli(["submit", ROUTER_A, "--script-file", file, ...flags], { env });
  };
  const jobsWith = async (description: string) =>
    (await service.jobs(ROUTER_A)).filter((job) => job.description === description);

  it("refuses a misspelled command with the nearest names, and sends nothing", async () => {
    const result = await submit("/system identiy set name=typo\n", "--description", "typo");
    expectOneErrorLine(
      result,
      2,
      "routerjobs: script: line 1 column 9: `identiy` is no menu or command at /system in RouterOS 7.24; did you mean `identity`? (nothing was sent; --no-check submits it as it is)",
      [SECRET],
    );
    expect(await jobsWith("typo")).toEqual([]);
  });

  it("refuses a script that does not parse, and sends nothing", async () => {
    const result = await submit('/system identity set name="open\n', "--description", "unterminated");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^routerjobs: script: does not parse as RouterOS: .*--no-check submits it/);
    expect(await jobsWith("unterminated")).toEqual([]);
  });

  it("--no-check submits the script as it is", async () => {
    const result = await submit(
      "/system identiy set name=typo\n",
      "--description",
      "unchecked",
      "--no-check",
    );
    expect(result.code).toBe(0);
    expect(await jobsWith("unchecked")).toHaveLength(1);
  });

  it("prints the job's id and number and the command that follows it", async () => {
    const result = await submit("/system identity set name=r1\n", "--description", "named");
    expect(result.code).toBe(0);
    const [job] = await jobsWith("named");
    expect(job).toBeDefined();
    expect(result.stdout).toContain(`  job id:          ${job.id}\n  seq:             ${job.seq_id}\n`);
    expect(result.stdout.trimEnd().split("\n").at(-1)).toBe(`follow it with: routerjobs jobs ${ROUTER_A}`);
  });
});
