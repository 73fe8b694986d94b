// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are RouterOS text and Terraform templates, not JS templates
/**
 * examples/plain-terraform under the real Terraform: init + validate, the job_key the HCL computes against
 * jobKey() (which `routerjobs apply` checks) for generated scripts, and an apply/destroy of the JSON example
 * with a recording stand-in for `routerjobs apply` (the real CLI needs a service; what is under test is what
 * Terraform hands to it, and in which order). terraform_data needs no provider, so this runs offline.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { TerraformStack, Testing } from "cdktf";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSingleRouter } from "../../examples/single-router/router.js";
import {
  type ApplyJob,
  type JobDefinition,
  jobKey,
  parseApplyJob,
} from "../../src/deploy/constructs/index.js";
import { ROUTER_A } from "../deploy/constructs/support.js";
import { testingApp } from "../helpers/scratch.js";
import { ROOT, TOKEN, terraformOrSkip } from "./support.js";

const terraform = terraformOrSkip("the plain Terraform module tests (terraform init/validate/console/apply)");
const MODULE = join(ROOT, "examples/plain-terraform");

/** The module's files (and its example), without what a local run may have left in the checkout. */
function copyModule(target: string, withExample: boolean): void {
  const left = new Set([
    ".terraform",
    ".terraform.lock.hcl",
    "terraform.tfstate",
    "terraform.tfstate.backup",
  ]);
  cpSync(MODULE, target, {
    recursive: true,
    filter: (source) => !left.has(basename(source)) && (withExample || source !== join(MODULE, "example")),
  });
}

interface Sample {
  readonly router_id: string;
  readonly script: string;
  readonly description?: string;
  readonly destroy_script?: string;
  readonly notify_url?: string;
  readonly make_backup?: boolean;
  readonly express_execute?: boolean;
  readonly needs_acknowledgement?: boolean;
}

/** Characters where JSON encoders differ (HTML escapes, line separators, backslashes) and Terraform templates. */
const TRICKY = ["<", ">", "&", "\\", "u", "0", "3", "c", "e", "2", "6", "8", "9", "\u2028", "\u2029"];
const MORE = [
  "$",
  "{",
  "%",
  "}",
  '"',
  "\n",
  "\r",
  "\t",
  "\b",
  "\f",
  "\u0001",
  "\u001f",
  "\u007f",
  "é",
  "😀",
  " ",
];
const text = (maxLength: number) =>
  fc
    .string({
      unit: fc.oneof(
        fc.constantFrom(...TRICKY, ...MORE),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
      ),
      minLength: 1,
      maxLength,
    })
    // An environment variable cannot hold NUL; the contract counts UTF-16 units, HCL counts characters.
    .filter((value) => !value.includes("\u0000") && value.length <= maxLength);

const sampleArbitrary: fc.Arbitrary<Sample> = fc.record(
  {
    router_id: fc.uuid({ version: 4 }),
    script: text(300),
    description: text(100),
    destroy_script: text(300),
    notify_url: fc.constantFrom("https://r.example/n?a=1&b=<2>", "https://h.example/\u2028"),
    make_backup: fc.boolean(),
    express_execute: fc.boolean(),
    needs_acknowledgement: fc.boolean(),
  },
  { requiredKeys: ["router_id", "script"] },
);

const EDGE_CASES: Record<string, Sample> = {
  "escapes-as-text": { router_id: ROUTER_A, script: ':put "\\\\u003c \\u003e \\\\\\\\u0026 <>&"' },
  "templates-and-separators": {
    router_id: ROUTER_A,
    script: "${x} %{y} $${z}\u2028\u2029",
    description: "a > b",
  },
  "backslash-runs": { router_id: ROUTER_A, script: "\\\\\\<\\\\>\\&\\u2028", destroy_script: "\\" },
};

describe.skipIf(terraform === undefined)("examples/plain-terraform under terraform", () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "rj-plain-tf-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function run(cwd: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
    const result = spawnSync(terraform as string, args, {
      cwd,
      input: options.input,
      encoding: "utf8",
      timeout: 120_000,
      env: { ...process.env, TF_IN_AUTOMATION: "1", TF_CLI_CONFIG_FILE: "/dev/null", ...options.env },
    });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  }

  function mustRun(cwd: string, args: string[], options?: { input?: string; env?: Record<string, string> }) {
    const result = run(cwd, args, options);
    if (result.status !== 0) throw new Error(`terraform ${args.join(" ")} failed:\n${result.output}`);
    return result.output;
  }

  /** A root module calling the example module once per sample; returns each sample's jobs by phase. */
  function jobsFor(samples: Record<string, Sample>): Record<string, Record<string, string>> {
    const root = mkdtempSync(join(dir, "root-"));
    copyModule(join(root, "module"), false);
    writeFileSync(
      join(root, "main.tf"),
      `variable "samples" {
  type = map(object({
    router_id = string, script = string, description = optional(string), destroy_script = optional(string),
    notify_url = optional(string), make_backup = optional(bool, true), express_execute = optional(bool, false),
    needs_acknowledgement = optional(bool, true)
  }))
}
module "job" {
  for_each              = var.samples
  source                = "./module"
  name                  = each.key
  router_id             = each.value.router_id
  script                = each.value.script
  description           = each.value.description
  destroy_script        = each.value.destroy_script
  notify_url            = each.value.notify_url
  make_backup           = each.value.make_backup
  express_execute       = each.value.express_execute
  needs_acknowledgement = each.value.needs_acknowledgement
}
`,
    );
    // Variable files are not templates: the samples reach the module exactly as written here.
    writeFileSync(join(root, "samples.tfvars.json"), JSON.stringify({ samples }));
    mustRun(root, ["init", "-input=false", "-no-color"]);
    // base64 keeps the console's own string quoting out of the way.
    const out = mustRun(root, ["console", "-var-file=samples.tfvars.json"], {
      input: "base64encode(jsonencode({ for name, job in module.job : name => job.jobs }))\n",
    });
    return JSON.parse(Buffer.from(JSON.parse(out.trim()) as string, "base64").toString("utf8"));
  }

  /** The fields job_key covers, as the module is expected to fill them in (the destroy job shares the description). */
  function definition(sample: Sample, phase: "create" | "destroy"): JobDefinition {
    return {
      phase,
      router_id: sample.router_id,
      description: sample.description ?? "",
      script: phase === "create" ? sample.script : (sample.destroy_script ?? ""),
      make_backup: sample.make_backup ?? true,
      express_execute: sample.express_execute ?? false,
      needs_acknowledgement: sample.needs_acknowledgement ?? true,
      ...(sample.notify_url === undefined ? {} : { notify_url: sample.notify_url }),
    };
  }

  it("passes terraform init, validate and fmt -check as published", () => {
    const copy = join(dir, "module");
    copyModule(copy, true);
    mustRun(copy, ["init", "-input=false", "-no-color"]);
    expect(mustRun(copy, ["validate", "-no-color"])).toContain("The configuration is valid");
    mustRun(copy, ["fmt", "-check", "-recursive", "-no-color"]);
    const example = join(copy, "example");
    mustRun(example, ["init", "-input=false", "-no-color"]);
    expect(mustRun(example, ["validate", "-no-color"])).toContain("The configuration is valid");
  });

  it("computes the job_key that jobKey() computes, for generated scripts, so routerjobs apply accepts the job", () => {
    // GIVEN scripts full of characters that JSON encoders treat differently (a fixed seed: one terraform run)
    const generated = fc.sample(sampleArbitrary, { seed: 20261122, numRuns: 60 });
    const samples: Record<string, Sample> = { ...EDGE_CASES };
    generated.forEach((sample, index) => {
      samples[`generated-${index}`] = sample;
    });
    // WHEN Terraform computes the jobs
    const jobs = jobsFor(samples);
    // THEN every job passes the CLI's own check, and its key is jobKey() of exactly the declared fields
    for (const [name, sample] of Object.entries(samples)) {
      const phases = jobs[name] ?? {};
      expect(Object.keys(phases).sort(), name).toEqual(
        sample.destroy_script === undefined ? ["create"] : ["create", "destroy"],
      );
      for (const [phase, json] of Object.entries(phases)) {
        const job: ApplyJob = parseApplyJob(json);
        // Terraform stores strings in Unicode NFC; the CLI hashes what it receives.
        const expected = definition(
          {
            ...sample,
            script: sample.script.normalize("NFC"),
            destroy_script: sample.destroy_script?.normalize("NFC"),
            description: (sample.description ?? name).normalize("NFC"),
          },
          phase as "create" | "destroy",
        );
        expect(job, `${name} ${phase}`).toMatchObject({
          ...expected,
          resource: name,
          wait_for: "auto",
          timeout_ms: 600_000,
        });
        expect(job.job_key, `${name} ${phase}`).toBe(jobKey(expected));
      }
    }
  });

  it("gives a job the same key as the cdktf constructs, so both can manage one router", () => {
    // GIVEN the single-router example's LAN section, as the constructs synthesize it
    const stack = new TerraformStack(testingApp(Testing), "single-router");
    const lan = buildSingleRouter(stack, { routerId: ROUTER_A }).sections[1];
    if (lan?.destroyJob === undefined) throw new Error("the example's LAN section lost its destroy script");
    // WHEN the module is given the same fields
    const jobs = jobsFor({
      lan: {
        router_id: ROUTER_A,
        script: lan.job.script,
        description: lan.job.description,
        destroy_script: lan.destroyJob.script,
      },
    });
    // THEN both keys match
    expect(parseApplyJob(jobs.lan?.create ?? "").job_key).toBe(lan.job.job_key);
    expect(parseApplyJob(jobs.lan?.destroy ?? "").job_key).toBe(lan.destroyJob.job_key);
  });

  it("refuses a router id that is not a lowercase UUID, naming the variable", () => {
    const root = mkdtempSync(join(dir, "bad-"));
    copyModule(root, false);
    mustRun(root, ["init", "-input=false", "-no-color"]);
    const result = run(root, [
      "plan",
      "-input=false",
      "-no-color",
      "-var",
      "name=x",
      "-var",
      "script=/x",
      "-var",
      `router_id=${ROUTER_A.toUpperCase()}`,
    ]);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain("router_id must be a lowercase UUID.");
  });

  describe("the JSON example, applied and destroyed", () => {
    let example: string;
    let log: string;

    beforeAll(() => {
      const copy = join(dir, "applied");
      copyModule(copy, true);
      example = join(copy, "example");
      log = join(dir, "calls.jsonl");
      writeFileSync(log, "");
      const recorder = join(dir, "record.mjs");
      writeFileSync(
        recorder,
        `import { appendFileSync } from "node:fs";
const env = process.env;
appendFileSync(process.argv[2], JSON.stringify({ args: process.argv.slice(3), job: env.ROUTERJOBS_JOB, instance: env.ROUTERJOBS_INSTANCE_ID, token: env.ROUTERJOBS_TOKEN ?? null }) + "\\n");
`,
      );
      mustRun(example, ["init", "-input=false", "-no-color"]);
      writeFileSync(
        join(example, "terraform.tfvars.json"),
        JSON.stringify({ router_id: ROUTER_A, cli: `${process.execPath} ${recorder} ${log}` }),
      );
    });

    let seen = 0;
    function newCalls(): { args: string[]; job: ApplyJob; instance: string; token: string | null }[] {
      const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
      const calls = lines.slice(seen).map((line) => {
        const call = JSON.parse(line) as {
          args: string[];
          job: string;
          instance: string;
          token: string | null;
        };
        return { ...call, job: parseApplyJob(call.job) };
      });
      seen = lines.length;
      return calls;
    }

    it("runs the jobs in depends_on order, the token only from the environment", () => {
      mustRun(example, ["apply", "-auto-approve", "-input=false", "-no-color"], {
        env: { ROUTERJOBS_TOKEN: TOKEN },
      });
      const calls = newCalls();
      expect(calls.map((call) => [call.args, call.job.phase, call.job.resource])).toEqual([
        [["apply"], "create", "edge-1/identity"],
        [["apply"], "create", "edge-1/lan"],
      ]);
      expect(calls.every((call) => call.token === TOKEN && call.instance.length > 0)).toBe(true);
      expect(readFileSync(join(example, "terraform.tfstate"), "utf8")).not.toContain(TOKEN);
    });

    it("does nothing on a second apply", () => {
      mustRun(example, ["apply", "-auto-approve", "-input=false", "-no-color"]);
      expect(newCalls()).toEqual([]);
    });

    it("runs only the declared destroy job on destroy, with the create run's instance id", () => {
      const state = readFileSync(join(example, "terraform.tfstate"), "utf8");
      mustRun(example, ["destroy", "-auto-approve", "-input=false", "-no-color"]);
      const calls = newCalls();
      expect(calls.map((call) => [call.job.phase, call.job.resource])).toEqual([["destroy", "edge-1/lan"]]);
      expect(state).toContain(calls[0]?.instance);
    });
  });
});
