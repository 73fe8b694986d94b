/**
 * One cell of the kill matrix: its own service (behind its own submission gate), stack folder and apply
 * journal, so cells run side by side. It deploys the office stack with the built CLI, watches the service and
 * the state file for kill points (never the clock), and tallies what the routers ran per declared script.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "../service/harness.js";
import { BIN, type Layout, startDeployTree, synthesizeOffice } from "./deploy-harness.js";
import type { KillTarget, ListedJob, TargetService } from "./kill-targets.js";
import type { SeenRequest } from "./submission-gate.js";

/** Generous: a watch only bounds a hang; two loaded cores run several cells' terraforms at once. */
const WATCH_MS = 90_000;

export interface DeployResult {
  readonly code: number | null;
  readonly output: string;
}

export class KillCell {
  readonly dir: string;
  private readonly stateDir: string;

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

  start(terraformArgs: readonly string[] = []) {
    return startDeployTree(this.dir, this.env(), terraformArgs);
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

  /** The job_key of router A's dns job in the synthesized stack: what its resource's state records. */
  dnsJobKey(): string {
    const config = JSON.parse(readFileSync(join(this.dir, "cdk.tf.json"), "utf8"));
    const [, resource] = Object.entries(config.resource.terraform_data).find(([name]) =>
      name.startsWith("edge-a_dns"),
    ) as [string, { triggers_replace: { job_key: string } }];
    return resource.triggers_replace.job_key;
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
