/**
 * What `routerjobs deploy` hands to every `routerjobs apply` of one `terraform apply`: each router's job list
 * as read once before the apply, and what Terraform's state held about each declared resource. With it a
 * provisioner decides without a job-list request of its own, and exactly (it knows which attempts Terraform
 * recorded). A file, named by an environment variable that local-exec passes on; it holds no secret.
 */
import { readFile, writeFile } from "node:fs/promises";
import * as z from "zod";
import { type JobListItem, jobListItemSchema } from "../../contract/job.js";
import { EnvironmentError } from "../../errors.js";
import type { ResourceKnowledge } from "../job-list/attempts.js";

export const DEPLOY_FILE_ENV = "ROUTERJOBS_DEPLOY_FILE";

export interface DeployKnowledge {
  readonly version: 1;
  /** Router id -> its jobs that carry a routerjobs marker, newest first. */
  readonly routers: Readonly<Record<string, readonly JobListItem[]>>;
  /** Resource (construct path or module `name`) -> what the state said of it. */
  readonly resources: Readonly<Record<string, ResourceKnowledge>>;
  /**
   * The declared resources whose identity the state would hold had Terraform recorded them (`terraform_data`
   * in a synthesized stack): one of them absent from `resources` was never recorded. Others (a `null_resource`,
   * a plain-Terraform module) are unknown to deploy when absent.
   */
  readonly tracked: readonly string[];
}

const knowledgeSchema = z.object({
  version: z.literal(1),
  routers: z.record(z.string(), z.array(jobListItemSchema)),
  resources: z.record(z.string(), z.object({ instances: z.array(z.string()), tainted: z.boolean() })),
  tracked: z.array(z.string()),
});

export async function writeDeployKnowledge(file: string, knowledge: DeployKnowledge): Promise<void> {
  await writeFile(file, JSON.stringify(knowledge), { mode: 0o600 });
}

export async function readDeployKnowledge(file: string): Promise<DeployKnowledge> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new EnvironmentError(
      `${DEPLOY_FILE_ENV} names ${file}, which cannot be read: ${(error as Error).message}`,
    );
  }
  const parsed = knowledgeSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new EnvironmentError(`${DEPLOY_FILE_ENV} names ${file}, which is not a deploy file`);
  return parsed.data;
}
