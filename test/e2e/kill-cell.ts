/**
 * One cell of the kill matrix: its own service (behind its own submission gate), stack folder and apply
 * journal, so cells run side by side. It deploys the office stack with the built CLI, watches the service and
 * the state file for kill points (never the clock), and tallies what the routers ran per declared script.
 */

import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  type FSWatcher,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { APPLY_JOB_ENV } from "../../src/contract/apply-job.js";
import { Journal, type JournalEntry } from "../../src/deploy/apply/journal.js";
import { eventually } from "../service/harness.js";
import { BIN, type Layout, startDeployTree, synthesizeOffice } from "./deploy-harness.js";
import type { KillTarget, ListedJob, TargetService } from "./kill-targets.js";
import type { SeenRequest } from "./submission-gate.js";

/** A provisioner as cdk.tf.json writes it. */
type LocalExec = { "local-exec"?: { environment?: Record<string, unknown> } };

/** Generous: a watch only bounds a hang; two loaded cores run several cells' terraforms at once. */
const WATCH_MS = 90_000;

export interface DeployResult {
  readonly code: number | null;
  readonly output: string;
}

export class KillCell {
  readonly dir: string;
  private readonly stateDir: string;
  /** What each deploy of this cell printed, in order: told with a wrong count. */
  private readonly printed: string[] = [];
  /** The deploy started last, and the journal watches to close with the cell. */
  private running: ChildProcess | undefined;
  private readonly watchers: FSWatcher[] = [];

  private constructor(
    readonly target: KillTarget,
    private readonly work: string,
  ) {
    this.dir = join(work, "stack");
    mkdirSync(this.dir);
    this.stateDir = join(work, "state");
    mkdirSync(join(work, "tmp"));
    writeFileSync(join(work, "ca.pem"), target.ca);
  }

  static async open(service: TargetService): Promise<KillCell> {
    const target = await service.cell();
    return new KillCell(target, mkdtempSync(join(tmpdir(), "rj-kill-cell-")));
  }

  async close(): Promise<void> {
    for (const watcher of this.watchers) watcher.close();
    await this.target.close();
    rmSync(this.work, { recursive: true, force: true });
  }

  env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      TF_IN_AUTOMATION: "1",
      CHECKPOINT_DISABLE: "1",
      ROUTERJOBS_URL: this.target.url,
      ROUTERJOBS_TOKEN: this.target.token,
      ROUTERJOBS_CA_FILE: join(this.work, "ca.pem"),
      ROUTERJOBS_STATE_DIR: this.stateDir,
      ROUTERJOBS_RATE_LIMIT: "1000/1s",
      // The deploy's temporary folder (its knowledge for the provisioners) is removed as it ends, but not by a
      // SIGKILL: in the cell's folder it goes with the cell instead of staying in /tmp after every kill.
      TMPDIR: join(this.work, "tmp"),
    };
  }

  /** The office stack on this cell's two routers. */
  synthesize(layout: Omit<Layout, "routers">): void {
    synthesizeOffice(this.dir, { ...layout, routers: this.target.routers });
  }

  /**
   * Rewrites the jobs of the synthesized stack as someone editing cdk.tf.json by hand would: each provisioner's
   * `ROUTERJOBS_JOB` through `edit`, its `job_key` left as synth wrote it.
   */
  editJobs(edit: (job: Record<string, unknown>) => Record<string, unknown>): void {
    const file = join(this.dir, "cdk.tf.json");
    const stack = JSON.parse(readFileSync(file, "utf8"));
    for (const resource of Object.values(stack.resource.terraform_data) as { provisioner?: unknown }[]) {
      for (const provisioner of [resource.provisioner ?? []].flat() as LocalExec[]) {
        const environment = provisioner["local-exec"]?.environment;
        const text = environment?.[APPLY_JOB_ENV];
        if (environment && typeof text === "string")
          environment[APPLY_JOB_ENV] = JSON.stringify(edit(JSON.parse(text)));
      }
    }
    writeFileSync(file, JSON.stringify(stack, null, 2));
  }

  start(terraformArgs: readonly string[] = []) {
    const run = startDeployTree(this.dir, this.env(), terraformArgs);
    this.running = run.child;
    const done = run.done.then((result) => {
      this.printed.push(`--- deploy ${terraformArgs.join(" ")}(exit ${result.code}):\n${result.output}`);
      return result;
    });
    return { child: run.child, done };
  }

  /** What the routers' job lists hold (each job's marker says who submitted it) and what every deploy printed. */
  async story(): Promise<string> {
    const listed = async (routerId: string) =>
      (await this.target.jobs(routerId)).map((job) => `  ${job.status}: ${JSON.stringify(job.description)}`);
    const { a, a2 } = this.target.routers;
    return [
      "jobs at router A:",
      ...(await listed(a)),
      "jobs at router A2:",
      ...(await listed(a2)),
      ...this.printed,
    ].join("\n");
  }

  deploy(terraformArgs: readonly string[] = []): Promise<DeployResult> {
    return this.start(terraformArgs).done;
  }

  /** The next deploy runs on a fresh machine: an ephemeral CI runner without the apply journal. */
  forgetJournal(): void {
    rmSync(this.stateDir, { recursive: true, force: true });
  }

  /** A job of `routerId` that waits at the service (held router): the deploy waits for it. */
  waitingJob(routerId: string): Promise<ListedJob> {
    return this.jobMatching(routerId, (job) => job.status === "pending" || job.status === "running");
  }

  jobMatching(routerId: string, matches: (job: ListedJob) => boolean): Promise<ListedJob> {
    return eventually(async () => (await this.target.jobs(routerId)).find(matches), WATCH_MS);
  }

  /** Resolves once the submission gate has passed a request that `matches` (its answer read from the service). */
  requestSeen(matches: (seen: SeenRequest, index: number) => boolean): Promise<SeenRequest> {
    return eventually(async () => this.target.gate.requests().find(matches), WATCH_MS);
  }

  /** Whether the state file's text comes to satisfy `holds` within `withinMs` (Terraform writes it when it will). */
  stateComesTo(holds: (text: string) => boolean, withinMs: number): Promise<boolean> {
    const file = join(this.dir, "terraform.tfstate");
    return eventually(async () => {
      if (!existsSync(file)) return undefined;
      return holds(await readFile(file, "utf8")) ? true : undefined;
    }, withinMs).catch(() => false);
  }

  /** The job_key of a resource's job in the synthesized stack (`edge-a_dns`, `edge-a2_identity`): what its
   * resource's state and the apply journal record. */
  jobKeyOf(resourcePrefix: string): string {
    const config = JSON.parse(readFileSync(join(this.dir, "cdk.tf.json"), "utf8"));
    const [, resource] = Object.entries(config.resource.terraform_data).find(([name]) =>
      name.startsWith(resourcePrefix),
    ) as [string, { triggers_replace: { job_key: string } }];
    return resource.triggers_replace.job_key;
  }

  /**
   * Freezes the running deploy's whole process group (SIGSTOP) the moment this machine's apply journal says an
   * outcome of the job was reported. inotify tells at once, so the apply that wrote it has usually not exited
   * yet, and Terraform, frozen too, cannot record the resource afterwards; its state says which came first.
   */
  freezeWhenReported(jobKey: string): Promise<void> {
    const journal = new Journal(this.stateDir);
    mkdirSync(journal.dir, { recursive: true, mode: 0o700 });
    const file = journal.fileOf(jobKey);
    return new Promise((resolve) => {
      const watcher = watch(journal.dir, (_event, changed) => {
        if (changed !== basename(file) || this.running === undefined) return;
        let reported = false;
        try {
          // Read at once (not through Journal#read, a promise later): the freeze must come before the apply exits.
          const entry = JSON.parse(readFileSync(file, "utf8")) as JournalEntry;
          reported = entry.attempts.some((attempt) => attempt.reported === true);
        } catch {
          return; // renamed away again, or not yet whole: the next event tells
        }
        if (!reported) return;
        process.kill(-(this.running.pid as number), "SIGSTOP");
        watcher.close();
        resolve();
      });
      this.watchers.push(watcher);
    });
  }

  /** `routerjobs reconcile --json`: the resource addresses of the declared changes. */
  async addressOf(resource: string): Promise<string> {
    const child = spawn(process.execPath, [BIN, "reconcile", "--json", "--dir", this.dir], {
      env: this.env(),
    });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    await new Promise((resolve) => child.on("close", resolve));
    const rows = JSON.parse(out) as { resource: string; address: string }[];
    const row = rows.find((candidate) => candidate.resource === resource);
    if (!row) throw new Error(`reconcile lists no ${resource}: ${out}`);
    return row.address;
  }

  /** How many times router A2 ran each script. */
  tallyOnA2(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const script of this.target.runs(this.target.routers.a2)) counts[script] = (counts[script] ?? 0) + 1;
    return counts;
  }

  /** The scripts router A ran, in order. */
  runsOnA(): readonly string[] {
    return this.target.runs(this.target.routers.a);
  }
}
