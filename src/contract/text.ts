/**
 * Text as the spec counts it and as PostgreSQL stores it. The spec's limits are in characters, and JavaScript's
 * `length` counts UTF-16 code units, in which an emoji is two. PostgreSQL refuses NUL in `text` and `jsonb`,
 * and an unpaired surrogate in `jsonb` (in `text` it silently becomes U+FFFD): both are refused where a
 * request arrives, naming the field, instead of failing as a 5xx where the value is stored.
 * No zod here: the CLI uses these on its start-up path (the schema is in text-field.ts).
 */

/** Characters as the spec counts them: Unicode code points. */
export function charCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** The first `max` characters, never splitting a surrogate pair. */
export function truncateChars(value: string, max: number): string {
  return charCount(value) <= max ? value : [...value].slice(0, max).join("");
}

// With the u flag a surrogate pair reads as one astral character, so only an unpaired half matches.
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/** Why PostgreSQL cannot store the string, read after the field's name; undefined when it can. */
export function unstorableText(value: string): string | undefined {
  if (value.includes("\u0000")) return "must not contain NUL characters (\\u0000)";
  if (UNPAIRED_SURROGATE.test(value)) return "must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)";
  return undefined;
}

export interface TextLimits {
  /** @default false */
  readonly nonEmpty?: boolean;
  /** @default no limit */
  readonly maxChars?: number;
}

/** What is wrong with a text value, each message starting with the field's name; empty when it passes. */
export function textProblems(
  field: string,
  value: string,
  { nonEmpty = false, maxChars }: TextLimits,
): string[] {
  const problems: string[] = [];
  if (nonEmpty && value.length === 0) problems.push(`${field} must not be empty`);
  if (maxChars !== undefined) {
    const chars = charCount(value);
    if (chars > maxChars) problems.push(`${field} must be at most ${maxChars} characters (got ${chars})`);
  }
  const unstorable = unstorableText(value);
  if (unstorable) problems.push(`${field} ${unstorable}`);
  return problems;
}

export interface TextIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

interface Step {
  readonly value: unknown;
  readonly key?: string | number;
  readonly parent?: Step;
}

function pathOf(step: Step): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Step | undefined = step; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/** Enough to say what is wrong; a body full of NULs must not cost a path per string. */
const MAX_TEXT_ISSUES = 10;

/**
 * Strings of a JSON value, keys included, that PostgreSQL could not store, with their paths (the first
 * MAX_TEXT_ISSUES): for payloads kept whole in `jsonb`, unknown fields and all. Iterative, and a path is built
 * only for a finding, so that deep nesting costs neither stack nor quadratic memory.
 */
export function unstorableStrings(value: unknown): TextIssue[] {
  const issues: TextIssue[] = [];
  const pending: Step[] = [{ value }];
  for (let step = pending.pop(); step && issues.length < MAX_TEXT_ISSUES; step = pending.pop()) {
    const current = step.value;
    if (typeof current === "string") {
      const problem = unstorableText(current);
      if (problem) issues.push(textIssue(pathOf(step), problem));
    } else if (Array.isArray(current)) {
      for (const [index, item] of current.entries()) pending.push({ value: item, key: index, parent: step });
    } else if (typeof current === "object" && current !== null) {
      for (const [key, item] of Object.entries(current)) {
        const problem = unstorableText(key);
        // The field's own name is the finding: its value is not searched, and the name stays out of paths.
        if (problem) issues.push(textIssue(pathOf(step), problem, "a field name in "));
        else pending.push({ value: item, key, parent: step });
      }
    }
  }
  return issues;
}

function textIssue(path: (string | number)[], problem: string, prefix = ""): TextIssue {
  return { path, message: `${prefix}${path.join(".") || "(body)"} ${problem}` };
}
