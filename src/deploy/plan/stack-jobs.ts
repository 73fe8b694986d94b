/**
 * The routerjobs jobs of a synthesized stack (`cdktf.out/stacks/<name>/cdk.tf.json`, or a plain Terraform JSON
 * file whose `terraform_data` resources carry the job literally), in the order Terraform would run them.
 * The job is read from the `ROUTERJOBS_JOB` environment of each resource's creation-time local-exec
 * provisioner, the same text `routerjobs apply` receives, so plan and apply can never disagree on a script.
 */
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { APPLY_JOB_ENV, type ApplyJob, parseApplyJob } from "../../contract/apply-job.js";
import { UsageError } from "../../errors.js";

export interface StackJob {
  /** Terraform's address, `terraform_data.<name>`. */
  readonly address: string;
  readonly job: ApplyJob;
}

interface Provisioner {
  readonly "local-exec"?: { readonly when?: string; readonly environment?: Record<string, unknown> };
}
interface DataResource {
  readonly depends_on?: readonly string[];
  readonly provisioner?: readonly Provisioner[] | Provisioner;
}

/** `dir` may be the stack folder, a folder holding one `cdk.tf.json`/`main.tf.json`, or the file itself. */
export async function stackFile(target: string): Promise<string> {
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new UsageError(`plan: ${target} does not exist (give a stack folder or its cdk.tf.json)`);
  if (info.isFile()) return target;
  for (const name of ["cdk.tf.json", "main.tf.json"]) {
    const file = join(target, name);
    if ((await stat(file).catch(() => undefined))?.isFile()) return file;
  }
  throw new UsageError(`plan: ${target} holds no cdk.tf.json or main.tf.json (run cdktf synth first)`);
}

/** Reads and orders the create-phase jobs of a stack file. */
export async function readStackJobs(file: string): Promise<StackJob[]> {
  let stack: unknown;
  try {
    stack = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new UsageError(`plan: ${file} is not Terraform JSON: ${(error as Error).message}`);
  }
  return stackJobs(stack, file);
}

/** A local-exec provisioner of a `terraform_data` resource that carries a job, its `ROUTERJOBS_JOB` as written. */
export interface ProvisionedJob {
  readonly address: string;
  readonly dependsOn: readonly string[];
  readonly when: string | undefined;
  /** A string for a literal job; anything else is a Terraform expression. */
  readonly text: unknown;
}

/** Every job provisioner of parsed Terraform JSON (`cdk.tf.json`), create and destroy, in declaration order. */
export function provisionedJobs(stack: unknown): ProvisionedJob[] {
  const resources = (stack as { resource?: { terraform_data?: Record<string, DataResource> } } | null)
    ?.resource?.terraform_data;
  const found: ProvisionedJob[] = [];
  for (const [name, resource] of Object.entries(resources ?? {})) {
    for (const provisioner of [resource.provisioner ?? []].flat()) {
      const exec = provisioner["local-exec"];
      const text = exec?.environment?.[APPLY_JOB_ENV];
      if (exec === undefined || text === undefined) continue;
      const address = `terraform_data.${name}`;
      found.push({ address, dependsOn: resource.depends_on ?? [], when: exec.when, text });
    }
  }
  return found;
}

/** The create-phase jobs of parsed Terraform JSON, each after the jobs it depends on (`depends_on`). */
export function stackJobs(stack: unknown, source = "the stack"): StackJob[] {
  const found = new Map<string, { job: ApplyJob; dependsOn: readonly string[] }>();
  for (const { address, dependsOn, when, text } of provisionedJobs(stack)) {
    if (when === "destroy") continue;
    if (typeof text !== "string" || text.includes("${"))
      throw new UsageError(
        `plan: ${source}: ${address} computes ${APPLY_JOB_ENV} with a Terraform expression; plan reads literal jobs only (cdktf synth writes them so)`,
      );
    let job: ApplyJob;
    try {
      job = parseApplyJob(text);
    } catch (error) {
      throw new UsageError(`plan: ${source}: ${address}: ${(error as Error).message}`);
    }
    if (job.phase === "create") found.set(address, { job, dependsOn });
  }
  return terraformOrder(found);
}

/**
 * Depth-first topological order that keeps declaration order among independent jobs: Terraform runs those in
 * parallel, and within one router the constructs chain every job, so the order that matters is preserved.
 */
function terraformOrder(found: Map<string, { job: ApplyJob; dependsOn: readonly string[] }>): StackJob[] {
  const ordered: StackJob[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (address: string, path: readonly string[]) => {
    const entry = found.get(address);
    if (!entry || state.get(address) === "done") return;
    if (state.get(address) === "visiting")
      throw new UsageError(`plan: a dependency cycle: ${[...path, address].join(" -> ")}`);
    state.set(address, "visiting");
    for (const dependency of entry.dependsOn) visit(dependency, [...path, address]);
    state.set(address, "done");
    ordered.push({ address, job: entry.job });
  };
  for (const address of found.keys()) visit(address, []);
  return ordered;
}
