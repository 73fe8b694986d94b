/**
 * The provider under the real Terraform, against the embedded service with a simulated router: installed into
 * a throwaway mirror (TF_CLI_CONFIG_FILE in a temp folder, HOME too), then init offline, plan (the twin's diff
 * lines in it), apply, a second apply with nothing to do, a plan that fails because the script would fail on
 * the twin, a script that fails on the router, import, destroy with its destroy script, and
 * the kill: the whole `terraform apply` process tree killed while its job is listed, then a plain apply again
 * with no journal, which finds the job by its marker and does not submit it again.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import type { JobListItem } from "../../../src/contract/job.js";
import type { ScriptOutcome } from "../../../src/contract/routers/router-backend.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { processes } from "../../helpers/processes.js";
import { scratchDir } from "../../helpers/scratch.js";
import { providerRun, type TerraformDir, terraformOrSkip } from "../../helpers/terraform.js";
import { waitFor } from "../../helpers/wait-for.js";
import {
  ROUTER_A,
  startTestService,
  type TestService,
  TOKEN_A,
  writeServiceCa,
} from "../../service/harness.js";

const terraform = terraformOrSkip("the provider under the real terraform");
const ROUTER = ROUTER_A;

/** The simulated routers, recording every script a job runs on them: "ran once" is counted where it runs. */
class RecordingBackend extends SimulatedBackend {
  readonly ran: string[] = [];

  override async runScript(
    routerId: string,
    script: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScriptOutcome> {
    const outcome = await super.runScript(routerId, script, options);
    if (routerId === ROUTER) this.ran.push(script);
    return outcome;
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

function resource(name: string, body: Record<string, string | boolean>): string {
  const lines = Object.entries(body).map(([key, value]) => `  ${key} = ${JSON.stringify(value)}`);
  return `resource "routerjobs_script" "${name}" {\n${lines.join("\n")}\n}\n`;
}

describe.skipIf(terraform === undefined)("terraform-provider-routerjobs under terraform", () => {
  let work: string;
  let backend: RecordingBackend;
  let svc: TestService;
  let client: RouterJobsClient;
  let tf: TerraformDir;

  beforeAll(async () => {
    work = scratchDir("rj-provider-");
    backend = new RecordingBackend({ seed: 7 });
    svc = await startTestService({}, backend);
    // The CLI as a user runs it: its output is the configuration to use.
    const run = providerRun(terraform as string, work, {
      url: svc.url,
      token: TOKEN_A,
      ca: svc.service.ca ?? "",
      caFile: writeServiceCa(svc, work),
    });
    ({ tf, client } = run);
    writeFileSync(join(tf.dir, "versions.tf"), run.requiredProviders);
    withTwin(true);
  });

  /** The provider block: the twin in the plan at its default, or turned off (a script let fail on the router). */
  const withTwin = (twin: boolean) =>
    writeFileSync(
      join(tf.dir, "provider.tf"),
      twin ? 'provider "routerjobs" {}\n' : 'provider "routerjobs" {\n  plan_twin = false\n}\n',
    );

  afterAll(async () => {
    await client?.close();
    tf?.remove();
    await svc?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const jobsOf = async (description: string): Promise<JobListItem[]> =>
    (await client.listJobs(ROUTER)).filter((job) => job.description.startsWith(`${description} [rj:`));

  const configure = (text: string) => writeFileSync(join(tf.dir, "main.tf"), text);

  const noJournal = () => rmSync(join(work, "state", "journal"), { recursive: true, force: true });

  it("inits from the mirror offline and plans a script", async () => {
    configure(
      resource("dns", { router_id: ROUTER, description: "set dns", script: "/ip dns set servers=1.1.1.1" }),
    );
    const init = await tf.mustRun(["init", "-input=false"]);
    expect(init).toContain("routerjobs.local/routerjobs/routerjobs");
    const plan = await tf.mustRun(["plan", "-input=false"]);
    expect(plan).toContain("routerjobs_script.dns will be created");
    expect(plan).toContain("job_id");
    expect(plan).toContain("(known after apply)");
    // The twin's effect, as `routerjobs plan` prints it.
    expect(plan).toContain("planned_changes");
    expect(plan).toMatch(/\/ip dns\s+[+~] .*servers=1\.1\.1\.1/);
    expect(await jobsOf("set dns")).toHaveLength(0);
  });

  it("applies once, records the job, keeps the token out of every file, and then has nothing to do", async () => {
    const apply = await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    expect(apply).toContain("1 added");
    const jobs = await jobsOf("set dns");
    expect(jobs.map((job) => job.status)).toEqual(["completed"]);
    const state = JSON.parse(readFileSync(join(tf.dir, "terraform.tfstate"), "utf8")) as {
      resources: { instances: { attributes: Record<string, unknown> }[] }[];
    };
    const attributes = state.resources[0]?.instances[0]?.attributes;
    expect(attributes?.job_id).toBe(jobs[0]?.id);
    expect(attributes?.status).toBe("completed");
    const secret = TOKEN_A.split(":").at(-1) ?? TOKEN_A;
    for (const file of filesUnder(tf.dir).filter((path) => statSync(path).size < 10_000_000))
      expect(readFileSync(file, "utf8").includes(secret), file).toBe(false);

    const again = await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    expect(again).toContain("No changes.");
    expect(await jobsOf("set dns")).toHaveLength(1);
  });

  it("reads a router and its jobs through the data sources, and names a bad router_id", async () => {
    const dns = resource("dns", {
      router_id: ROUTER,
      description: "set dns",
      script: "/ip dns set servers=1.1.1.1",
    });
    configure(
      `${dns}data "routerjobs_router" "edge" {\n  router_id = "${ROUTER}"\n}\n` +
        `data "routerjobs_jobs" "dns" {\n  router_id = "${ROUTER}"\n  description_contains = "set dns [rj:"\n}\n` +
        'output "identity" {\n  value = data.routerjobs_router.edge.identity\n}\n' +
        'output "has_dns" {\n  value = strcontains(data.routerjobs_router.edge.export, "servers=1.1.1.1")\n}\n' +
        'output "dns_jobs" {\n  value = [for job in data.routerjobs_jobs.dns.jobs : job.status]\n}\n',
    );
    const apply = await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    expect(apply).toContain("0 added");
    const outputs = (await tf.json(["output", "-json"])) as Record<string, { value: unknown }>;
    expect(outputs.dns_jobs?.value).toEqual(["completed"]);
    expect(outputs.has_dns?.value).toBe(true);
    expect(outputs.identity?.value).toEqual(expect.any(String));

    configure(`${dns}data "routerjobs_router" "bad" {\n  router_id = "edge-1"\n}\n`);
    const bad = await tf.run(["plan", "-input=false"]);
    expect(bad.status, bad.output).not.toBe(0);
    expect(bad.output).toContain("router_id: must be a UUID");
  });

  it("fails the plan with the router's error and line when the script would fail on the twin", async () => {
    configure(
      resource("dns", { router_id: ROUTER, description: "set dns", script: "/ip dns set servers=1.1.1.1" }) +
        resource("broken", {
          router_id: ROUTER,
          description: "broken",
          script: "/system identity set name=ok\n/ip address add address=10.1.1.1/24 interface=nope",
        }),
    );
    const plan = await tf.run(["plan", "-input=false"]);
    expect(plan.status, plan.output).not.toBe(0);
    expect(plan.output).toContain(`the script would fail on router ${ROUTER}`);
    expect(plan.output).toContain("input does not match any value of interface");
    expect(plan.output).toContain("line 2");
    const apply = await tf.run(["apply", "-input=false", "-auto-approve"]);
    expect(apply.status, apply.output).not.toBe(0);
    expect(await jobsOf("broken")).toHaveLength(0);
  });

  it("fails the apply with the router's reason when the script fails there", async () => {
    withTwin(false);
    configure(
      resource("dns", { router_id: ROUTER, description: "set dns", script: "/ip dns set servers=1.1.1.1" }) +
        resource("broken", {
          router_id: ROUTER,
          description: "broken",
          script: "/ip address add address=10.1.1.1/24 interface=nope",
        }),
    );
    const result = await tf.run(["apply", "-input=false", "-auto-approve"]);
    expect(result.status, result.output).not.toBe(0);
    expect(result.output).toContain("input does not match any value of interface");
    expect((await jobsOf("broken")).map((job) => job.status)).toEqual(["failed"]);
    // Tainted: the next apply replaces it, a new attempt.
    const plan = await tf.run(["plan", "-input=false"]);
    expect(plan.output).toContain("tainted");
  });

  it("restores the router from the job's backup when a script with rollback = on-failure fails there", async () => {
    withTwin(false);
    const exportOf = async () => {
      await waitFor(() => !backend.isRebooting(ROUTER), {
        what: "the router back from the restore's reboot",
      });
      return (await backend.router(ROUTER).runSource("/export")).join("\n");
    };
    const before = await exportOf();
    configure(
      resource("dns", { router_id: ROUTER, description: "set dns", script: "/ip dns set servers=1.1.1.1" }) +
        resource("halfway", {
          router_id: ROUTER,
          description: "half way",
          script: '/system identity set name="half"\n:error "half way"',
          rollback: "on-failure",
        }),
    );
    const result = await tf.run(["apply", "-input=false", "-auto-approve"]);
    expect(result.status, result.output).not.toBe(0);
    expect(result.output.replace(/\s+/g, " ")).toMatch(
      /half way \(line 2 column 1\); rolled back: the router is restored from backup routerjobs-job-\d+ \(restore job #\d+\)/,
    );
    expect(await exportOf()).toBe(before);
    // A rollback without the backup it restores is refused before anything runs.
    configure(
      resource("nobackup", {
        router_id: ROUTER,
        description: "no backup",
        script: "/ip dns set servers=1.1.1.1",
        make_backup: false,
        rollback: "on-failure",
      }),
    );
    const refused = await tf.run(["plan", "-input=false"]);
    expect(refused.status).not.toBe(0);
    expect(refused.output).toContain('rollback: "on-failure" needs make_backup = true');
  });

  it("imports a job by router and job id without running it again", async () => {
    configure(
      resource("dns", { router_id: ROUTER, description: "set dns", script: "/ip dns set servers=1.1.1.1" }),
    );
    await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    const [job] = await jobsOf("set dns");
    await tf.mustRun(["state", "rm", "routerjobs_script.dns"]);
    const imported = await tf.mustRun([
      "import",
      "-input=false",
      "routerjobs_script.dns",
      `${ROUTER}/${job?.id}`,
    ]);
    expect(imported).toContain("Import successful");
    const apply = await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    expect(apply).toContain("0 added");
    expect(await jobsOf("set dns")).toHaveLength(1);
  });

  it("runs the destroy script once on destroy", async () => {
    configure(
      resource("dns", {
        router_id: ROUTER,
        description: "set dns",
        script: "/ip dns set servers=1.1.1.1",
        destroy_script: '/ip dns set servers=""',
      }),
    );
    await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    await tf.mustRun(["destroy", "-input=false", "-auto-approve"]);
    const destroyJobs = await jobsOf("destroy: set dns");
    expect(destroyJobs.map((job) => job.status)).toEqual(["completed"]);
  });

  /** Keeps the router's jobs pending, so that a kill finds the job listed and not yet run. */
  async function holdRouter(): Promise<void> {
    // The service attaches a router on its first use; an offline router leaves its jobs pending.
    await svc.call("POST", `/api/synchronous/${ROUTER}`, {
      token: TOKEN_A,
      body: { command: "/system/identity/print" },
    });
    backend.setOnline(ROUTER, false);
  }

  async function killWhenListed(description: string): Promise<JobListItem> {
    await holdRouter();
    const run = tf.start(["apply", "-input=false", "-auto-approve"]);
    const listed = await waitFor(async () => (await jobsOf(description))[0], {
      what: `the job "${description}" listed`,
      detail: run.output,
    });
    try {
      run.kill();
    } catch (error) {
      throw new Error(`terraform apply had ended before the kill:\n${run.output()}`, { cause: error });
    }
    await run.done;
    noJournal();
    backend.setOnline(ROUTER, true);
    return listed;
  }

  it("after kill -9 of the whole apply while its job is listed, a plain apply with no journal follows that job", async () => {
    const script = "/system identity set name=edge-slow";
    configure(resource("slow", { router_id: ROUTER, description: "slow change", script }));
    const listed = await killWhenListed("slow change");
    const apply = await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    expect(apply).toContain("1 added");
    const jobs = await jobsOf("slow change");
    expect(jobs.map((job) => job.id)).toEqual([listed.id]);
    expect(jobs[0]?.status).toBe("completed");
    expect(backend.ran.filter((ran) => ran === script)).toHaveLength(1);
    const shown = (await tf.json(["show", "-json"])) as {
      values: { root_module: { resources: { address: string; values: Record<string, unknown> }[] } };
    };
    const slow = shown.values.root_module.resources.find((r) => r.address === "routerjobs_script.slow");
    expect(slow?.values.job_id).toBe(listed.id);
  });

  it("reports with the router's reason a job that failed after the kill, and never submits it again", async () => {
    configure(
      resource("late", {
        router_id: ROUTER,
        description: "late failure",
        script: "/ip address add address=10.1.1.1/24 interface=nope",
      }),
    );
    const listed = await killWhenListed("late failure");
    const result = await tf.run(["apply", "-input=false", "-auto-approve"]);
    expect(result.status, result.output).not.toBe(0);
    expect(result.output).toContain("input does not match any value of interface");
    expect((await jobsOf("late failure")).map((job) => job.id)).toEqual([listed.id]);
  });

  it("leaves Terraform with a clear error, not a hang, when the provider alone is killed mid-apply", async () => {
    const script = "/system identity set name=edge-provider-killed";
    configure(resource("orphan", { router_id: ROUTER, description: "provider killed", script }));
    await holdRouter();
    const run = tf.start(["apply", "-input=false", "-auto-approve"]);
    const listed = await waitFor(async () => (await jobsOf("provider killed"))[0], {
      what: "the job listed",
      detail: run.output,
    });
    const provider = processes().find(
      (info) => info.cwd === tf.dir && info.args.includes(join("dist", "bundle", "provider.js")),
    );
    expect(provider, "the provider's process").toBeDefined();
    process.kill(provider?.pid ?? 0, "SIGKILL");
    const code = await run.done;
    expect(code).not.toBe(0);
    expect(run.output()).toMatch(/plugin/i);
    backend.setOnline(ROUTER, true);
    await tf.mustRun(["apply", "-input=false", "-auto-approve"]);
    expect((await jobsOf("provider killed")).map((job) => job.id)).toEqual([listed.id]);
    expect(backend.ran.filter((ran) => ran === script)).toHaveLength(1);
  });
});
