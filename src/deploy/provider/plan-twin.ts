/**
 * The twin in `terraform plan`: a script that would run is run on a twin of its router (`routerjobs plan`'s
 * machinery: the live export, the simulator, the export diff), and its effect becomes the planned
 * `planned_changes`; a script that would fail there fails the plan with the router's error and line.
 *
 * One export read per router per provider process, and none for a router with nothing to run. Terraform plans
 * each change twice, in the plan walk and again just before applying it (in another provider process), and
 * refuses an apply whose second plan differs from the first: so what the first computed is kept, per Terraform
 * process (the parent both walks share), in the state folder, and the second plan takes it without a read of
 * its own. The live export itself is never written anywhere.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RouterJobsClient } from "../../client/client.js";
import { RouterjobsError } from "../../errors.js";
import { isProcessAlive, processStartTicks } from "../../platform/fs/process-alive.js";
import { withLine } from "../../routeros/errors.js";
import type { ServicePath } from "../../routeros/simulator/reachability/index.js";
import { diffExports } from "../plan/export-diff.js";
import { readLiveConfig } from "../plan/live-config.js";
import { diffLines } from "../plan/report.js";
import { runOnTwin, TwinLoadError } from "../plan/twin.js";

export type TwinEffect =
  /**
   * The export diff lines the script makes on the twin; `unchecked` says why the service's path to the router
   * could not be checked, when it could not.
   */
  | { readonly kind: "changes"; readonly text: string; readonly unchecked?: string }
  /** The script would cut the service off from the router: the rule or setting, and the path it cuts. */
  | { readonly kind: "cuts"; readonly text: string; readonly reason: string; readonly path: string }
  /** The script fails on the twin: the router's error, with its line. */
  | { readonly kind: "fails"; readonly error: string }
  /** The twin could not be built (the export could not be read, or the simulator cannot hold it). */
  | { readonly kind: "unavailable"; readonly reason: string };

export class PlanTwin {
  readonly #exports = new Map<string, Promise<string>>();

  constructor(
    private readonly client: RouterJobsClient,
    /** Where this Terraform process's plans are kept; undefined where the process cannot be named. */
    private readonly memoDir: string | undefined,
    /** The service's path to each router, checked after the script (docs/safe-change.md); none: unchecked. */
    private readonly reach?: (routerId: string) => ServicePath,
  ) {}

  /** What `script` would do on the router's twin (the same for every change that runs that script there). */
  async effectOf(routerId: string, script: string): Promise<TwinEffect> {
    const path = this.reach?.(routerId);
    const key = `${routerId}\n${script}\n${JSON.stringify(path ?? null)}`;
    const memo = this.memoDir ? join(this.memoDir, `${digest(key)}.json`) : undefined;
    if (memo) {
      const kept = await readFile(memo, "utf8").catch(() => undefined);
      if (kept !== undefined) return JSON.parse(kept) as TwinEffect;
    }
    const effect = await this.#run(routerId, script, path);
    if (memo && this.memoDir) {
      await mkdir(this.memoDir, { recursive: true, mode: 0o700 });
      await writeFile(memo, JSON.stringify(effect), { mode: 0o600 });
    }
    return effect;
  }

  async #run(routerId: string, script: string, path: ServicePath | undefined): Promise<TwinEffect> {
    try {
      const twin = await runOnTwin(await this.#exportOf(routerId), [{ resource: routerId, script }], path);
      const failure = twin.failures[0];
      if (failure) return { kind: "fails", error: withLine(failure.error, failure.line) };
      const text = diffLines(diffExports(twin.before, twin.after), "").join("\n");
      const reach = twin.reachability;
      if (reach?.status === "cut") return { kind: "cuts", text, reason: reach.reason, path: reach.path };
      return { kind: "changes", text, ...(reach?.status === "unknown" ? { unchecked: reach.reason } : {}) };
    } catch (error) {
      if (!(error instanceof RouterjobsError || error instanceof TwinLoadError)) throw error;
      return { kind: "unavailable", reason: error.message };
    }
  }

  #exportOf(routerId: string): Promise<string> {
    const known = this.#exports.get(routerId);
    if (known) return known;
    const read = readLiveConfig(this.client, routerId);
    this.#exports.set(routerId, read);
    return read;
  }
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

/** A folder this function made: `<pid>-<start ticks>`. Nothing else under the root is ever removed. */
const MEMO_FOLDER = /^(\d+)-\d+$/;

/**
 * The folder of the Terraform process that started this provider (its id and start time: no later process
 * has both), under `root`; the folders of Terraform processes that have ended are removed.
 */
export async function planMemoDir(root: string, parent = process.ppid): Promise<string | undefined> {
  const started = processStartTicks(parent);
  if (started === undefined) return undefined;
  const entries = await readdir(root).catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((name) => {
        const pid = MEMO_FOLDER.exec(name)?.[1];
        return pid !== undefined && !isProcessAlive(Number(pid));
      })
      .map((name) => rm(join(root, name), { recursive: true, force: true })),
  );
  return join(root, `${parent}-${started}`);
}
