/**
 * The identity of one attempt at one declared change, carried where every service keeps it: at the end of the
 * job's `description` (the spec's only free-text field, listed back by the job list and shown in the portal's
 * orchestration log). It lets `routerjobs apply`, `reconcile` and `deploy` find what a declared change did at
 * the service on any machine, after any interruption, without depending on a service honouring an
 * `Idempotency-Key` header (the public service documents none on this endpoint).
 *
 * `Set DNS servers [rj:k3f9-a2x7-h7cq-2]`: the declaring resource (construct path), the job definition
 * (`job_key`), Terraform's resource instance that made the attempt, and the attempt's number.
 */
import { createHash } from "node:crypto";
import { DESCRIPTION_MAX_CHARS } from "./limits.js";
import type { Wave } from "./wave-check.js";

export interface AttemptMarker {
  /** Hash tag of the declaring resource (construct path, or the plain-Terraform module's `name`). */
  readonly resourceTag: string;
  /** Hash tag of the job definition (`job_key`: router, phase, script, flags). */
  readonly definitionTag: string;
  /** Hash tag of Terraform's resource instance id (`self.id`) that made the attempt. */
  readonly instanceTag: string;
  /** 1, 2, ...: counts the attempts at this definition of this resource. */
  readonly attempt: number;
}

const TAG_LENGTH = 4;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
const MARKER = /\s\[rj:([a-z2-7]{4})-([a-z2-7]{4})-([a-z2-7]{4})-([1-9][0-9]{0,5})\]$/;
/** The longest suffix: a space, brackets, `rj:`, three tags, three dashes and six digits. */
export const MARKER_MAX_LENGTH = 2 + 3 + 3 * TAG_LENGTH + 3 + 6 + 1;
const ELLIPSIS = "…";

/** 20 bits of sha256 in base32: enough to tell apart the resources, definitions and instances of one router. */
export function tagOf(text: string): string {
  const bytes = createHash("sha256").update(text).digest();
  const bits = (((bytes[0] ?? 0) << 16) | ((bytes[1] ?? 0) << 8) | (bytes[2] ?? 0)) >>> 4;
  let tag = "";
  for (let shift = 15; shift >= 0; shift -= 5) tag += ALPHABET[(bits >> shift) & 31];
  return tag;
}

export function markerText(marker: AttemptMarker): string {
  return `rj:${marker.resourceTag}-${marker.definitionTag}-${marker.instanceTag}-${marker.attempt}`;
}

/**
 * A rollout job's wave, written just before the marker (`Set DNS servers (wave 1/3) [rj:...]`): the one place a
 * service, which sees only jobs, learns which wave a job belongs to (the portal's deploy timeline groups by
 * it). Outside the marker's brackets, so the marker's text, its lookups and its idempotency key stay as they
 * were; and outside `job_key`, so a change of waves runs nothing again.
 */
const WAVE_TEXT = /\s\(wave ([1-9][0-9]{0,3})\/([1-9][0-9]{0,3})\)(?=\s\[rj:[^\]]*\]$)/;
/** Waves past this are not written: four digits keep the description's room for what a person wrote. */
const WAVE_TEXT_MAX = 9999;

const waveText = (wave: Wave | undefined): string =>
  wave === undefined || wave.waves > WAVE_TEXT_MAX || wave.wave > wave.waves
    ? ""
    : ` (wave ${wave.wave}/${wave.waves})`;

/**
 * The description as submitted: the declared one, shortened with an ellipsis where the marker needs the room
 * (the spec allows 100 characters in all), then the rollout wave where there is one, then the marker.
 * Characters are counted as the service counts them (code points).
 */
export function markDescription(description: string, marker: AttemptMarker, wave?: Wave): string {
  const suffix = `${waveText(wave)} [${markerText(marker)}]`;
  const room = DESCRIPTION_MAX_CHARS - [...suffix].length;
  const chars = [...description];
  const text = chars.length <= room ? description : `${chars.slice(0, room - 1).join("")}${ELLIPSIS}`;
  return `${text}${suffix}`;
}

/** The marker at the end of a listed job's description, or undefined for a job routerjobs did not submit. */
export function parseMarker(description: string): AttemptMarker | undefined {
  const match = MARKER.exec(description);
  if (!match) return undefined;
  const [, resourceTag = "", definitionTag = "", instanceTag = "", attempt = "0"] = match;
  return { resourceTag, definitionTag, instanceTag, attempt: Number(attempt) };
}

/** The rollout wave a marked description carries (`markDescription`), or undefined outside a rollout. */
export function parseWave(description: string): Wave | undefined {
  const match = WAVE_TEXT.exec(description);
  if (!match) return undefined;
  const wave = { wave: Number(match[1]), waves: Number(match[2]) };
  return wave.wave <= wave.waves ? wave : undefined;
}

/** The description a person wrote, without the marker (for progress lines and the demo's live view). */
export function stripMarker(description: string): string {
  return description.replace(MARKER, "");
}
