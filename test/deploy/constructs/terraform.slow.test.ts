// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are Terraform expressions and RouterOS text, not JS templates
/**
 * The synthesized stack against the real Terraform: `init` + `validate`, then `apply`/`destroy` with a
 * recording stand-in for `routerjobs apply` (the real CLI needs the service; what is under test here is what
 * Terraform hands to it, in which order, and when). terraform_data needs no provider, so this runs offline.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, LocalBackend, TerraformStack } from "cdktf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApplyJob,
  parseApplyJob,
  RouterConfig,
  type RouterSection,
} from "../../../src/deploy/constructs/index.js";
import { terraformOrSkip } from "../../helpers/terraform.js";
import { ROUTER_A } from "./support.js";

const terraform = terraformOrSkip("the real `terraform validate`/`apply` of a synthesized stack");
const TOKEN = `0b7c4c3e-1f2a-4b5c-9d8e-7f6a5b4c3d2e:1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d:${"Q7".repeat(31)}`;
// Valid RouterOS holding Terraform's template introducers; the description holds an already doubled one.
const IDENTITY = '/system identity set name="edge \\${site} %{x} \\$z"';
const TRICKY_DESCRIPTION = "identity $${y} %{x}";

interface Call {
  readonly args: string[];
  readonly job: ApplyJob;
  readonly instance: string;
  readonly token: string | null;
}

describe.skipIf(terraform === undefined)("the synthesized stack under terraform", () => {
  let dir: string;
  let log: string;
  let calls = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "rj-terraform-"));
    log = join(dir, "calls.jsonl");
    writeFileSync(log, "");
    writeFileSync(
      join(dir, "record.mjs"),
      `import { appendFileSync } from "node:fs";
const [log, ...args] = process.argv.slice(2);
const env = process.env;
appendFileSync(log, JSON.stringify({ args, job: env.ROUTERJOBS_JOB, instance: env.ROUTERJOBS_INSTANCE_ID, token: env.ROUTERJOBS_TOKEN ?? null }) + "\\n");
const job = JSON.parse(env.ROUTERJOBS_JOB);
if (env.RJ_FAIL_ON === job.phase + ":" + job.resource) process.exit(3);
`,
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Synthesizes the sections into the working folder, as `cdktf synth` would. */
  function synthesize(sections: readonly RouterSection[]): void {
    const outdir = mkdtempSync(join(tmpdir(), "rj-out-"));
    const app = new App({ outdir, skipValidation: false });
    const stack = new TerraformStack(app, "office");
    // cdktf's default local backend writes to the current folder, which is the repository here.
    new LocalBackend(stack, { path: join(dir, "terraform.tfstate") });
    new RouterConfig(stack, "edge-1", {
      routerId: ROUTER_A,
      cli: `${process.execPath} ${join(dir, "record.mjs")} ${log}`,
      sections,
    });
    app.synth();
    copyFileSync(join(outdir, "stacks", "office", "cdk.tf.json"), join(dir, "cdk.tf.json"));
    rmSync(outdir, { recursive: true, force: true });
  }

  function run(args: string[], env: Record<string, string> = {}): { status: number | null; output: string } {
    const result = spawnSync(terraform as string, args, {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
      env: {
        ...process.env,
        TF_IN_AUTOMATION: "1",
        CHECKPOINT_DISABLE: "1",
        ROUTERJOBS_TOKEN: TOKEN,
        ...env,
      },
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  function mustRun(args: string[], env?: Record<string, string>): string {
    const result = run(args, env);
    if (result.status !== 0) throw new Error(`terraform ${args.join(" ")} failed:\n${result.output}`);
    return result.output;
  }

  /** The calls of the recording CLI since the previous read. */
  function newCalls(): Call[] {
    const lines = readFileSync(log, "utf8").trim().split("\n").filter(Boolean);
    const fresh = lines.slice(calls);
    calls = lines.length;
    return fresh.map((line) => {
      const raw = JSON.parse(line) as { args: string[]; job: string; instance: string; token: string | null };
      return { ...raw, job: parseApplyJob(raw.job) };
    });
  }

  const sections = (dns: string): RouterSection[] => [
    {
      name: "identity",
      script: IDENTITY,
      description: TRICKY_DESCRIPTION,
      destroyScript: '/system identity set name="MikroTik"',
    },
    { name: "dns", script: `/ip dns set servers=${dns}`, destroyScript: '/ip dns set servers=""' },
  ];

  it("passes init and validate", () => {
    // GIVEN a synthesized stack WHEN Terraform initializes and validates it THEN both succeed offline
    synthesize(sections("1.1.1.1"));
    mustRun(["init", "-input=false", "-no-color"]);
    expect(mustRun(["validate", "-no-color"])).toContain("The configuration is valid");
  });

  it("runs each job once, in order, with the script intact and the token only from the environment (not in config, plan or state)", () => {
    // WHEN the stack is planned and the plan applied
    mustRun(["plan", "-input=false", "-no-color", "-out=plan.bin"]);
    const plan = mustRun(["show", "-json", "plan.bin"]);
    mustRun(["apply", "-auto-approve", "-input=false", "-no-color", "plan.bin"]);
    // THEN `apply` ran for identity, then dns
    const ran = newCalls();
    expect(ran.map((call) => [call.args, call.job.phase, call.job.resource])).toEqual([
      [["apply"], "create", "office/edge-1/identity"],
      [["apply"], "create", "office/edge-1/dns"],
    ]);
    // AND the script reached the CLI byte for byte, template sequences included
    expect(ran[0]?.job.script).toBe(IDENTITY);
    expect(ran[0]?.job.description).toBe(TRICKY_DESCRIPTION);
    expect(ran[0]?.instance).toMatch(/^[0-9a-f-]{36}$/);
    // AND the token came from Terraform's environment, and neither config nor state holds it
    expect(ran.every((call) => call.token === TOKEN)).toBe(true);
    expect(plan).toContain("terraform_data");
    expect(plan).not.toContain("Q7Q7");
    expect(readFileSync(join(dir, "cdk.tf.json"), "utf8")).not.toContain("Q7Q7");
    expect(readFileSync(join(dir, "terraform.tfstate"), "utf8")).not.toContain("Q7Q7");
  });

  it("does nothing when nothing changed", () => {
    const output = mustRun(["apply", "-auto-approve", "-input=false", "-no-color"]);
    expect(output).toContain("No changes.");
    expect(newCalls()).toEqual([]);
  });

  it("re-runs only the changed section: its old destroy job, then its new job", () => {
    // GIVEN the dns section changed
    synthesize(sections("9.9.9.9"));
    // WHEN applied
    mustRun(["apply", "-auto-approve", "-input=false", "-no-color"]);
    // THEN only dns ran: the replacement destroys (old destroy script) then creates (new script)
    const ran = newCalls();
    expect(ran.map((call) => [call.job.phase, call.job.resource, call.job.script])).toEqual([
      ["destroy", "office/edge-1/dns", '/ip dns set servers=""'],
      ["create", "office/edge-1/dns", "/ip dns set servers=9.9.9.9"],
    ]);
    // AND the new instance has a new id, so the CLI's idempotency key differs from the old job's
    expect(ran[1]?.instance).not.toBe(ran[0]?.instance);
  });

  it("fails the apply when a job fails, and runs that job again on the next apply", () => {
    // GIVEN the dns section changed and its job failing
    synthesize(sections("8.8.8.8"));
    const failed = run(["apply", "-auto-approve", "-input=false", "-no-color"], {
      RJ_FAIL_ON: "create:office/edge-1/dns",
    });
    // THEN the apply fails and the resource is tainted
    expect(failed.status).not.toBe(0);
    expect(failed.output).toMatch(/local-exec provisioner error/);
    expect(newCalls().map((call) => call.job.phase)).toEqual(["destroy", "create"]);
    // WHEN applied again with the job succeeding
    mustRun(["apply", "-auto-approve", "-input=false", "-no-color"]);
    // THEN the job runs again; a tainted resource gets no destroy job
    expect(newCalls().map((call) => [call.job.phase, call.job.script])).toEqual([
      ["create", "/ip dns set servers=8.8.8.8"],
    ]);
  });

  it("runs the destroy jobs in reverse order on destroy", () => {
    mustRun(["destroy", "-auto-approve", "-input=false", "-no-color"]);
    expect(newCalls().map((call) => [call.job.phase, call.job.resource])).toEqual([
      ["destroy", "office/edge-1/dns"],
      ["destroy", "office/edge-1/identity"],
    ]);
  });
});
