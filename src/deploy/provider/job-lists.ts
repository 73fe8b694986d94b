/**
 * Each router's job list, read once per provider process: the first Create or Read of a router asks the
 * service, and every other resource of that router in the same Terraform run (concurrent ones too: they share
 * the read in flight) decides from that answer. Terraform starts one provider process per walk (plan, apply),
 * so a list is never older than its walk; within a walk a list read before this process's own submissions
 * still holds every attempt that matters to a Create: the attempts of interrupted earlier runs (adopted), and
 * Terraform's own record of what it destroyed in this process (a new attempt). A read that fails is not kept,
 * so the next resource of that router asks again.
 */
import type { RouterJobsClient } from "../../client/client.js";
import { isServiceNotThere, isTransient, patiently } from "../../client/patience.js";
import type { JobListItem } from "../../contract/job.js";

export class RouterJobLists {
  readonly #lists = new Map<string, Promise<readonly JobListItem[]>>();

  constructor(
    private readonly client: RouterJobsClient,
    private readonly signal: AbortSignal,
  ) {}

  /** The router's whole job list as read first in this process. */
  of(routerId: string, deadline: number): Promise<readonly JobListItem[]> {
    const known = this.#lists.get(routerId);
    if (known) return known;
    const read = patiently(
      () =>
        this.client.listJobs(routerId, {
          deadlineMs: Math.max(1, deadline - Date.now()),
          signal: this.signal,
        }),
      // The first contact: a service that is not there fails now, with the reason, instead of at the timeout.
      {
        deadline,
        signal: this.signal,
        transient: (error) => isTransient(error) && !isServiceNotThere(error),
      },
    );
    this.#lists.set(routerId, read);
    read.catch(() => {
      if (this.#lists.get(routerId) === read) this.#lists.delete(routerId);
    });
    return read;
  }
}
