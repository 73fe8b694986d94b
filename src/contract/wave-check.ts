/**
 * The check between two waves of a Fleet rollout, as the constructs write it at synth time (JSON in the
 * `ROUTERJOBS_VERIFY` environment variable of the wave gate's local-exec provisioner) and `routerjobs verify`
 * reads it. Like apply-job.ts, it must not import cdktf: the CLI imports it.
 */
import * as z from "zod";
import { parseEnvJson } from "./env-json.js";
import { uuidSchema } from "./ids.js";
import { scriptSchema } from "./job.js";

export const WAVE_CHECK_ENV = "ROUTERJOBS_VERIFY";
export const WAVE_CHECK_VERSION = 1;

/** Which wave of how many; carried in each job of a rollout too, for the progress lines. */
export const waveSchema = z.object({
  wave: z.number().int().positive(),
  waves: z.number().int().positive(),
});
export type Wave = z.output<typeof waveSchema>;

/** What a failed check does beyond stopping the rollout (`rollback-wave`: restore the wave's routers). */
export const WAVE_FAILURE_MODES = ["stop", "rollback-wave"] as const;
export type WaveFailureMode = (typeof WAVE_FAILURE_MODES)[number];

/** A job of a router of the wave, as its RouterScript declared it: what finds its attempt in the job list. */
export const waveJobSchema = z.object({
  resource: z.string().min(1),
  job_key: z.string().regex(/^[0-9a-f]{64}$/, { error: "job_key must be 64 lowercase hex characters" }),
});
export type WaveJob = z.output<typeof waveJobSchema>;

export const waveCheckSchema = z.looseObject({
  version: z.literal(WAVE_CHECK_VERSION, {
    error: (issue) =>
      `version must be ${WAVE_CHECK_VERSION} (got ${JSON.stringify(issue.input)}); this routerjobs may be older than the constructs that wrote the check`,
  }),
  /** Construct path of the wave gate, e.g. `office/offices/rollout/wave-1`: for messages. */
  resource: z.string().min(1),
  wave: waveSchema,
  routers: z
    .array(
      z.object({
        name: z.string().min(1),
        router_id: uuidSchema,
        /** Its jobs in this wave, with `on_failure: "rollback-wave"` only: whose backups restore it. */
        jobs: z.array(waveJobSchema).optional(),
      }),
    )
    .min(1),
  /** A read-only RouterOS script run on each router; it fails the check by failing (`:error "..."`). */
  script: scriptSchema.optional(),
  /** How long to wait after the wave's jobs completed before checking. */
  soak_ms: z.number().int().nonnegative(),
  /** How long the checks of the wave may take in all, after the soak. */
  timeout_ms: z.number().int().positive(),
  /** Absent means `stop`, so the JSON of a rollout that never set it is unchanged. */
  on_failure: z.enum(WAVE_FAILURE_MODES).optional(),
});
export type WaveCheck = z.output<typeof waveCheckSchema>;

/** Reads `ROUTERJOBS_VERIFY` text; every problem is a UsageError naming the field. */
export function parseWaveCheck(text: string): WaveCheck {
  return parseEnvJson(waveCheckSchema, text, WAVE_CHECK_ENV, "wave check");
}

/** `wave 2/3`, as every progress line of a rollout names it. */
export function waveLabel(wave: Wave): string {
  return `wave ${wave.wave}/${wave.waves}`;
}
