/**
 * Which declared jobs Terraform has already applied, read from a state file without Terraform and without the
 * service: plan must cost exactly one request per router, so it cannot read job lists. A job whose `job_key`
 * sits in an untainted resource of the state is one `terraform apply` would not run again (its
 * `triggers_replace` is unchanged); every other job would run. Accepts a local `terraform.tfstate` (format 4)
 * and the output of `terraform show -json` (any backend: `terraform show -json > state.json`).
 */
import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../../errors.js";
import { jobResourcesOf, STATE_IDENTITY_KEY, stateIdentitySchema } from "../terraform/state.js";

interface StateV4 {
  readonly version?: unknown;
  readonly resources?: readonly {
    readonly mode?: string;
    readonly type?: string;
    readonly instances?: readonly { readonly status?: string; readonly attributes?: { input?: unknown } }[];
  }[];
}

/** The job keys of untainted job resources in a parsed state (either format). */
export function appliedJobKeys(state: unknown, source = "the state"): Set<string> {
  const parsed = state as StateV4 & { values?: unknown };
  if (parsed !== null && typeof parsed === "object" && "values" in parsed)
    return new Set(
      jobResourcesOf(parsed)
        .filter((resource) => !resource.tainted)
        .map((resource) => resource.identity.job_key),
    );
  if (parsed?.version !== 4 || !Array.isArray(parsed.resources))
    throw new UsageError(
      `plan: ${source} is neither a terraform.tfstate (version 4) nor 'terraform show -json' output`,
    );
  const keys = new Set<string>();
  for (const resource of parsed.resources) {
    if (resource.mode !== "managed" || resource.type !== "terraform_data") continue;
    for (const instance of resource.instances ?? []) {
      if (instance.status === "tainted") continue;
      const identity = identityOf(instance.attributes?.input);
      if (identity) keys.add(identity);
    }
  }
  return keys;
}

/** `input` is a dynamic attribute: format 4 stores it as `{value, type}`. */
function identityOf(input: unknown): string | undefined {
  const holder = input as { value?: unknown; type?: unknown } | null | undefined;
  const value = (holder && "type" in holder ? holder.value : holder) as Record<string, unknown> | undefined;
  const text = value?.[STATE_IDENTITY_KEY];
  if (typeof text !== "string") return undefined;
  try {
    return stateIdentitySchema.parse(JSON.parse(text)).job_key;
  } catch {
    return undefined;
  }
}

/**
 * The state file to read: `--state FILE`; else the one the stack's local backend names (cdktf writes an absolute
 * `terraform.<stack>.tfstate` in the app's folder, not beside the synthesized stack); else `terraform.tfstate`
 * or `terraform.<stack>.tfstate` next to the stack file; else none (a stack never applied: every job would run).
 */
export async function findStateFile(stackFile: string, explicit?: string): Promise<string | undefined> {
  if (explicit !== undefined) return explicit;
  const dir = dirname(stackFile);
  const named = await backendPath(stackFile);
  const candidates = [
    ...(named === undefined ? [] : [resolve(dir, named)]),
    ...["terraform.tfstate", `terraform.${basename(dir)}.tfstate`].map((name) => join(dir, name)),
  ];
  for (const file of candidates) if ((await stat(file).catch(() => undefined))?.isFile()) return file;
  return undefined;
}

/** `terraform.backend.local.path` of a stack file, which Terraform resolves from the stack's folder. */
async function backendPath(stackFile: string): Promise<string | undefined> {
  try {
    const stack = JSON.parse(await readFile(stackFile, "utf8")) as {
      terraform?: { backend?: { local?: { path?: unknown } } };
    };
    const path = stack.terraform?.backend?.local?.path;
    return typeof path === "string" && path !== "" ? path : undefined;
  } catch {
    // an unreadable stack file is reported by the stack's own reading
    return undefined;
  }
}

export async function readAppliedJobKeys(file: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`plan: --state: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    return appliedJobKeys(JSON.parse(text), file);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`plan: ${file} is not JSON: ${(error as Error).message}`);
  }
}
