/**
 * `routerjobs reconcile` and `routerjobs deploy`: the declared changes of a Terraform working directory
 * compared with what the routers ran, and `terraform apply` run so that every declared change runs exactly
 * once whatever interrupted the deploy before (docs/apply.md, "Exactly once").
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { RouterJobsClient } from "../../client/client.js";
import { NetworkError, TimeoutError } from "../../client/errors.js";
import { parseApplyJob } from "../../contract/apply-job.js";
import { ChangesNotAppliedError, EnvironmentError, InterruptedError } from "../../errors.js";
import { DEPLOY_FILE_ENV, writeDeployKnowledge } from "../apply/deploy-knowledge.js";
import { failureReason } from "../job-list/failure-reason.js";
import { provisionedJobs } from "../plan/stack-jobs.js";
import { jobResourcesOf, type StateResource } from "../terraform/state.js";
import { runGroup } from "../terraform/terraform.js";
import { makeDeployFolder } from "./deploy-folder.js";
import { HaltedBlocks } from "./halted-blocks.js";
import { deployKnowledge, type Finding, type Reconciliation, reconcile } from "./reconcile.js";

export interface StackOptions {
  /** The terraform (or tofu) binary. */
  readonly terraform: string;
  /** The working directory: `cdktf.out/stacks/<stack>`, or a plain Terraform root module. */
  readonly dir: string;
  /** The environment of terraform and its provisioners (ROUTERJOBS_URL, ROUTERJOBS_TOKEN, ...). */
  readonly env: NodeJS.ProcessEnv;
  readonly client: RouterJobsClient;
  readonly write: (line: string) => void;
  readonly signal?: AbortSignal | undefined;
}

export interface StackReconciliation {
  readonly resources: readonly StateResource[];
  readonly reconciliation: Reconciliation;
  readonly declared: DeclaredJobs;
}

const FAILURE_REASON_MS = 15_000;

/** Reads the state (initializing the directory first when needed) and asks each router's job list once. */
export async function reconcileStack(options: StackOptions): Promise<StackReconciliation> {
  await initialize(options);
  const { stdout } = await promisify(execFile)(options.terraform, ["show", "-json", "-no-color"], {
    cwd: options.dir,
    env: options.env,
    maxBuffer: 256 * 1024 * 1024,
  }).catch((error: Error & { stderr?: string }) => {
    throw new EnvironmentError(
      `terraform show -json failed in ${options.dir}: ${error.stderr?.trim() || error.message}`,
    );
  });
  const resources = jobResourcesOf(JSON.parse(stdout));
  const declared = await declaredJobs(options.dir);
  const reconciliation = await reconcile(resources, options.client, {
    signal: options.signal,
    routers: declared.routers,
  });
  return { resources, reconciliation, declared };
}

/** One line per resource whose change is not done, then a summary; the failures' reasons are read too. */
export async function report(
  reconciliation: Reconciliation,
  options: Pick<StackOptions, "client" | "write">,
): Promise<void> {
  const counts = new Map<string, number>();
  for (const finding of reconciliation.findings) {
    counts.set(finding.verdict, (counts.get(finding.verdict) ?? 0) + 1);
    if (finding.verdict === "ok") continue;
    const reason = finding.verdict === "failed" ? `: ${await reasonOf(finding, options.client)}` : "";
    options.write(
      `routerjobs: ${finding.resource.identity.resource} (${finding.resource.address}): ${finding.verdict}, ${finding.detail}${reason}`,
    );
  }
  const routers = reconciliation.jobsByRouter.size + reconciliation.unreadable.size;
  const summary = [...counts].map(([verdict, n]) => `${n} ${verdict}`).join(", ") || "none in the state";
  options.write(`routerjobs: reconciled the state's job resources with ${routers} router(s): ${summary}`);
}

/**
 * Reconciles, then runs `terraform apply` so that the reconciliation holds: a change Terraform recorded but
 * whose job never ran (or is still in flight) is replaced, so that it runs (or is waited for); a failure that
 * happened after an interrupted deploy is reported and its resource tainted, and the deploy stops there, as a
 * failed provisioner stops Terraform. The provisioners get the job lists and what the state held, so they
 * decide exactly and spend no request of their own before submitting.
 */
export async function deployStack(
  options: StackOptions & { readonly applyArgs: readonly string[] },
): Promise<void> {
  const { reconciliation, declared } = await reconcileStack(options);
  const { unreachable } = reconciliation;
  // Every provisioner would wait its whole timeout for a service that does not answer; nothing ran yet.
  if (unreachable) throw stoppedBeforeTerraform(unreachable);
  await report(reconciliation, options);
  const failed = reconciliation.findings.filter((finding) => finding.verdict === "failed");
  if (failed.length > 0) {
    for (const finding of failed) await terraform(options, ["taint", finding.resource.address]);
    throw new ChangesNotAppliedError(
      `${failed.length} declared change(s) failed after an interrupted deploy (above); their resources are tainted, so the next deploy runs them again`,
    );
  }
  const replace = reconciliation.findings
    .filter((finding) => finding.verdict === "missing" || finding.verdict === "in-flight")
    .map((finding) => `-replace=${finding.resource.address}`);
  const folder = await makeDeployFolder();
  try {
    const file = join(folder, "deploy.json");
    await writeDeployKnowledge(file, deployKnowledge(reconciliation, declared.tracked));
    const code = await terraform(
      { ...options, env: { ...options.env, [DEPLOY_FILE_ENV]: file } },
      ["apply", "-input=false", "-auto-approve", ...replace, ...options.applyArgs],
      true,
    );
    if (code !== 0)
      throw new ChangesNotAppliedError(
        `terraform apply failed (exit ${code}); its output above names the resources`,
      );
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The service's failure, said as what deploy did about it; the same class, so the same exit code (4). */
function stoppedBeforeTerraform(error: NetworkError | TimeoutError): NetworkError | TimeoutError {
  const message = `deploy stopped before terraform apply, nothing was run: ${error.message}`;
  const init = { requestSent: error.requestSent, causeCode: error.causeCode, cause: error };
  return error instanceof TimeoutError
    ? new TimeoutError(message, { ...init, phase: error.phase })
    : new NetworkError(message, init);
}

/** What a synthesized cdktf stack declares jobs for (`declaredJobs`). */
interface DeclaredJobs {
  /** Their routers: their lists are read once here even before the state holds any of their resources (a
   * provisioner without its router's list would ask for it itself). */
  readonly routers: readonly string[];
  /** The resources carried by `terraform_data`, whose identity the state keeps once Terraform records them:
   * absent from the state, Terraform recorded nothing of them. */
  readonly tracked: readonly string[];
}

/**
 * The jobs a synthesized cdktf stack (`cdk.tf.json`) declares on `terraform_data`, read as `plan` reads them.
 * A plain-Terraform module (HCL) is not read, nor is a `null_resource` (its state keeps no identity): their
 * provisioners look for themselves, and decide without the state for a resource it does not hold. A job this
 * routerjobs cannot read is left to its provisioner, whose apply says what is wrong with it.
 */
async function declaredJobs(dir: string): Promise<DeclaredJobs> {
  const file = join(dir, "cdk.tf.json");
  if (!existsSync(file)) return { routers: [], tracked: [] };
  const routers = new Set<string>();
  const tracked = new Set<string>();
  for (const { text } of provisionedJobs(JSON.parse(await readFile(file, "utf8")))) {
    if (typeof text !== "string") continue;
    try {
      const job = parseApplyJob(text);
      routers.add(job.router_id);
      tracked.add(job.resource);
    } catch {
      // left to the provisioner (above)
    }
  }
  return { routers: [...routers], tracked: [...tracked] };
}

async function reasonOf(finding: Finding, client: RouterJobsClient): Promise<string> {
  const job = finding.job;
  if (!job) return "no reason known";
  return failureReason(client, finding.resource.identity.router_id, job, Date.now() + FAILURE_REASON_MS);
}

async function initialize(options: StackOptions): Promise<void> {
  if (existsSync(join(options.dir, ".terraform"))) return;
  const code = await terraform(options, ["init", "-input=false"], false);
  if (code !== 0) throw new EnvironmentError(`terraform init failed in ${options.dir} (exit ${code})`);
}

/**
 * How long deploy, asked to stop, waits for Terraform to say that it heard the interrupt itself before sending
 * its own: a second interrupt makes Terraform exit at once ("Two interrupts received. Exiting immediately"),
 * without waiting for its provisioners to stop or saving what they finished.
 */
const OWN_INTERRUPT_MS = 1000;

/** Runs terraform in deploy's process group, its output line by line to `write`; an abort stops it. */
async function terraform(options: StackOptions, args: readonly string[], stream = true): Promise<number> {
  options.signal?.throwIfAborted();
  let heardInterrupt = false;
  const halted = new HaltedBlocks((line) => options.write(`routerjobs: ${line}`));
  const onLine = (line: string) => {
    if (line === TERRAFORM_HEARD_INTERRUPT) heardInterrupt = true;
    // Once Terraform or deploy heard the interrupt, each provisioner Terraform stopped is one block of its own;
    // its apply has already said in one line what the next deploy does about it. Terraform's own line decides
    // as well as deploy's signal: under load deploy may read Terraform's blocks before its signal handler runs.
    if ((heardInterrupt || options.signal?.aborted) && halted.drops(line)) return;
    if (stream) options.write(line);
  };
  // In deploy's own process group: whatever stops deploy's group (Ctrl-C, a runner's kill) stops terraform and
  // its provisioners with it, and never leaves a terraform running on, holding the state lock.
  const step = runGroup(options.terraform, [...args, "-no-color"], {
    cwd: options.dir,
    env: options.env,
    detached: false,
    onLine,
  });
  // Deploy asked to stop: SIGINT is terraform's own graceful stop (it lets running provisioners end). A Ctrl-C
  // in a terminal, or a runner's signal to the group, reached terraform as it reached deploy; only a signal to
  // deploy alone needs passing on.
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    timer = setTimeout(() => {
      if (!heardInterrupt) step.child.kill("SIGINT");
    }, OWN_INTERRUPT_MS);
  };
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    const { code, output } = await step.done;
    options.signal?.throwIfAborted();
    // Terraform stopped on an interrupt deploy has not heard (yet, or at all: a signal to terraform alone).
    if (heardInterrupt && code !== 0)
      throw new InterruptedError("terraform was interrupted; run deploy again to finish");
    if (code !== 0 && !stream) options.write(output.trim());
    return code ?? 1;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", stop);
  }
}

/** Terraform's first line on SIGINT or SIGTERM. */
const TERRAFORM_HEARD_INTERRUPT = "Interrupt received.";
