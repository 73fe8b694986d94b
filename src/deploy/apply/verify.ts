/**
 * `routerjobs verify`: the gate between two waves of a Fleet rollout. Terraform runs it (the gate resource's
 * local-exec) once every job of the wave completed; it waits the soak time, then runs the wave's read-only
 * check on each router, and fails, so that Terraform creates nothing of the next wave, when any check fails.
 *
 * The check runs through the synchronous endpoint, not as a job: it only reads, so it needs no backup and
 * no exactly-once bookkeeping; it answers at once, with the script's output or the router's error text,
 * instead of waiting for a scheduler tick and behind queued jobs; and it leaves the routers' job lists as
 * the record of changes alone. Each check is one request through the client, so it counts against the same
 * rate budget as the jobs. A router that cannot be reached fails its check: losing the management path is
 * exactly what a rollout must stop for.
 */

import type { RouterJobsClient } from "../../client/client.js";
import { RateLimitedError } from "../../client/errors.js";
import { formatDuration } from "../../contract/duration.js";
import { type WaveCheck, waveLabel } from "../../contract/wave-check.js";
import { ChangesNotAppliedError } from "../../errors.js";
import { mapLimited } from "../../platform/map-limited.js";
import { rollBackWave, routersRolledBack } from "../rollback/rollback-wave.js";
import { Progress } from "./progress.js";

export interface VerifyContext {
  readonly client: RouterJobsClient;
  readonly write: (line: string) => void;
  readonly signal?: AbortSignal | undefined;
}

export interface RouterCheck {
  readonly name: string;
  readonly routerId: string;
  readonly passed: boolean;
  /** The script's output when it passed, the router's (or the service's) reason when it failed. */
  readonly output: string;
}

/** Checks at once per wave: the client's budget paces them further when the key is busy. */
const CONCURRENCY = 8;

/** Runs the wave's check; resolves with every router's result, or throws ChangesNotAppliedError naming them. */
export async function verifyWave(check: WaveCheck, context: VerifyContext): Promise<RouterCheck[]> {
  const progress = new Progress(check.resource, context.write, check.wave);
  const count = check.routers.length;
  if (check.on_failure === "rollback-wave") {
    // A re-run after this wave was rolled back: its jobs are recorded as done, but the routers were restored.
    const restored = await routersRolledBack(check, context);
    if (restored.length > 0)
      throw new ChangesNotAppliedError(
        `${check.resource}: ${waveLabel(check.wave)}: the wave was rolled back on ${restored.join(", ")}, so ` +
          "its routers do not hold its change: change the declared scripts, or replace the wave's job resources " +
          "(terraform apply -replace=...), to run them again before the rollout goes on (docs/rollback.md)",
      );
  }
  progress.line(
    `${count} of ${count} router${count === 1 ? "" : "s"} done` +
      (check.soak_ms > 0 ? `; soaking ${formatDuration(check.soak_ms)} before the check` : ""),
  );
  if (check.soak_ms > 0) await pause(check.soak_ms, context.signal);
  const script = check.script;
  if (script === undefined) {
    progress.line(passedLine(check));
    return [];
  }
  const deadline = Date.now() + check.timeout_ms;
  const results = await mapLimited(check.routers, CONCURRENCY, async (router) => {
    const result = await checkRouter(router, script, deadline, context);
    const output = result.output.trim();
    progress.line(
      result.passed
        ? `check passed on ${router.name}${output ? `: ${oneLine(output)}` : ""}`
        : `check FAILED on ${router.name} (${router.router_id}): ${output}`,
    );
    return result;
  });
  const failed = results.filter((result) => !result.passed);
  if (failed.length > 0) {
    const later = check.wave.wave < check.wave.waves ? `; wave ${check.wave.wave + 1} is not started` : "";
    // rollback-wave (docs/rollback.md): the whole wave goes back to before its jobs, then the gate fails.
    const restores =
      check.on_failure === "rollback-wave"
        ? await rollBackWave(check, { ...context, write: (line) => progress.line(line) })
        : undefined;
    const rolledBack = restores
      ? `; rollback-wave: ${restores.filter((r) => r.restored).length} of ${count} router(s) restored ` +
        `(${restores.map((r) => `${r.name}: ${r.summary}`).join("; ")})`
      : "";
    throw new ChangesNotAppliedError(
      `${check.resource}: ${waveLabel(check.wave)}: the check failed on ${failed.length} of ${count} router(s) ` +
        `(${failed.map((result) => `${result.name}: ${oneLine(result.output)}`).join("; ")})${later}${rolledBack}`,
    );
  }
  progress.line(passedLine(check));
  return results;
}

function passedLine(check: WaveCheck): string {
  return check.wave.wave < check.wave.waves
    ? `passed: wave ${check.wave.wave + 1} may start`
    : "passed: the rollout is complete";
}

async function checkRouter(
  router: { readonly name: string; readonly router_id: string },
  script: string,
  deadline: number,
  context: VerifyContext,
): Promise<RouterCheck> {
  const base = { name: router.name, routerId: router.router_id };
  for (;;) {
    try {
      const records = await context.client.execute(router.router_id, "/execute", `=script=${script}`, {
        deadlineMs: Math.max(1, deadline - Date.now()),
        signal: context.signal,
      });
      const output = records.map((record) => record.ret ?? "").join("\n");
      return { ...base, passed: true, output };
    } catch (error) {
      context.signal?.throwIfAborted();
      // A 429 means the service did not run the check: wait as asked (the budget holds every process of the
      // key meanwhile) and ask again, until the wave's deadline.
      if (error instanceof RateLimitedError && Date.now() < deadline) {
        await pause(Math.min(error.retryAfterMs ?? 1000, Math.max(0, deadline - Date.now())), context.signal);
        continue;
      }
      return { ...base, passed: false, output: (error as Error).message };
    }
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " | ");
}

/** The soak: a wait the user asked for, which a Ctrl-C ends. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}
