import type { ApplyJob } from "../../../src/contract/apply-job.js";
import { parseApplyJob, RouterScript } from "../../../src/deploy/constructs/index.js";
import { ROUTER_A } from "../../service/harness.js";
import { provisioners, resourceAt, synth } from "../constructs/support.js";

/** The job the constructs write for `script` with a safe change (two minutes), confirmed by polling. */
export function safeJob(id: string, script: string, routerId = ROUTER_A, confirmWithin = "2m"): ApplyJob {
  const text = synth(
    (stack) => new RouterScript(stack, id, { routerId, script, safeChange: { confirmWithin } }),
  );
  const [create] = provisioners(resourceAt(text, id));
  return { ...parseApplyJob(create?.environment.ROUTERJOBS_JOB ?? ""), wait_for: "poll", timeout_ms: 20_000 };
}
