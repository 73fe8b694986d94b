/**
 * Terraform's blind spot, closed from the service's side. Terraform can record a job resource as created while
 * its provisioner still runs; a kill at that moment leaves a change that Terraform calls done although its job
 * never ran, or failed after the kill. `reconcile` compares every job resource in the state with the routers'
 * job lists (one request per router) and says what each one's change did.
 */
import type { RouterJobsClient } from "../../client/client.js";
import { NetworkError, TimeoutError } from "../../client/errors.js";
import { parseMarker, tagOf } from "../../contract/attempt-marker.js";
import { isTerminal, type JobListItem } from "../../contract/job.js";
import type { DeployKnowledge } from "../apply/deploy-knowledge.js";
import { attemptsOf, currentAttempt, type ResourceKnowledge } from "../job-list/attempts.js";
import type { StateResource } from "../terraform/state.js";

export type Verdict =
  /** Its change ran and completed. */
  | "ok"
  /** Recorded by Terraform, but no attempt at its change is listed (or another definition ran since). */
  | "missing"
  /** Its job is queued or running: the next apply waits for it. */
  | "in-flight"
  /** Its job failed or was deleted after Terraform recorded the resource: nobody reported it yet. */
  | "failed"
  /** Tainted: Terraform replaces it on the next apply anyway. */
  | "tainted"
  /** Its router's job list could not be read. */
  | "unknown";

export interface Finding {
  readonly resource: StateResource;
  readonly verdict: Verdict;
  readonly job?: JobListItem | undefined;
  /** Why, for a person. */
  readonly detail: string;
}

/** What the job list says of one resource in the state. */
export function judge(resource: StateResource, jobs: readonly JobListItem[]): Finding {
  if (resource.tainted)
    return {
      resource,
      verdict: "tainted",
      detail:
        // The verdict precedes the detail in the report's line (`tainted, the next apply ...`).
        "the next apply replaces it, and runs its job again unless the job completed since (done) or failed after its apply stopped waiting (reported first)",
    };
  const { identity } = resource;
  const { latest, superseded } = currentAttempt(
    attemptsOf(jobs, tagOf(identity.resource)),
    tagOf(identity.job_key),
  );
  if (!latest || superseded)
    return {
      resource,
      verdict: "missing",
      detail: latest
        ? "another definition ran after this one; this one has to run again"
        : "no job for this change is listed: it never reached the router",
    };
  const { job } = latest;
  const seq = job.seq_id === undefined ? job.id : `#${job.seq_id}`;
  if (!isTerminal(job.status))
    return { resource, verdict: "in-flight", job, detail: `job ${seq} is ${job.status}` };
  if (job.status === "completed") return { resource, verdict: "ok", job, detail: `job ${seq} completed` };
  return { resource, verdict: "failed", job, detail: `job ${seq} ${job.status}` };
}

export interface Reconciliation {
  readonly findings: readonly Finding[];
  /** Router id -> its job list as read, for the provisioners of the apply that follows. */
  readonly jobsByRouter: ReadonlyMap<string, readonly JobListItem[]>;
  /** Router id -> why its list could not be read. */
  readonly unreadable: ReadonlyMap<string, string>;
  /**
   * Set when a list could not be read because the service itself gave no answer (refused, DNS, TLS, timed out):
   * nothing a provisioner does then can reach it either, so `deploy` stops before Terraform.
   */
  readonly unreachable?: NetworkError | TimeoutError | undefined;
}

/** One job-list request per router of the state's job resources. */
export async function reconcile(
  resources: readonly StateResource[],
  client: RouterJobsClient,
  options: { readonly signal?: AbortSignal; readonly routers?: Iterable<string> } = {},
): Promise<Reconciliation> {
  const routers = new Set([...resources.map((r) => r.identity.router_id), ...(options.routers ?? [])]);
  const jobsByRouter = new Map<string, readonly JobListItem[]>();
  const unreadable = new Map<string, string>();
  let unreachable: NetworkError | TimeoutError | undefined;
  await Promise.all(
    [...routers].map(async (routerId) => {
      try {
        jobsByRouter.set(routerId, await client.listJobs(routerId, { signal: options.signal }));
      } catch (error) {
        unreadable.set(routerId, (error as Error).message);
        if (error instanceof NetworkError || error instanceof TimeoutError) unreachable ??= error;
      }
    }),
  );
  const findings = resources.map((resource): Finding => {
    const jobs = jobsByRouter.get(resource.identity.router_id);
    if (jobs) return judge(resource, jobs);
    const why = unreadable.get(resource.identity.router_id) ?? "not read";
    return { resource, verdict: "unknown", detail: `the router's job list could not be read: ${why}` };
  });
  return { findings, jobsByRouter, unreadable, unreachable };
}

/**
 * The deploy file for the apply that follows: the lists as read (only routerjobs' own jobs, to keep it small)
 * and per resource what the state held (its instances, and whether one is tainted). A change that never ran
 * needs nothing more: `deploy` replaces its resource, and its provisioner finds no attempt (or a later one of
 * another definition) in the lists and submits; a change of another definition than the state's is decided
 * by its own attempts.
 */
export function deployKnowledge(
  reconciliation: Reconciliation,
  tracked: readonly string[] = [],
): DeployKnowledge {
  const byResource = new Map<string, ResourceKnowledge>();
  for (const finding of reconciliation.findings) {
    const { identity, instanceId, tainted } = finding.resource;
    const known = byResource.get(identity.resource) ?? { instances: [], tainted: false };
    byResource.set(identity.resource, {
      instances: [...known.instances, tagOf(instanceId)],
      tainted: known.tainted || tainted,
    });
  }
  const routers: Record<string, JobListItem[]> = {};
  for (const [routerId, jobs] of reconciliation.jobsByRouter)
    routers[routerId] = jobs.filter((job) => parseMarker(job.description) !== undefined);
  return { version: 1, routers, resources: Object.fromEntries(byResource), tracked: [...tracked] };
}
