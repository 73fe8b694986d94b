import { API_PROFILES, DEFAULT_API_PROFILE, isApiProfileName } from "../../contract/api-profile-name.js";
import { ROLLBACK_MODES, WAIT_MODES } from "../../contract/apply-job.js";
import {
  charCount,
  DESCRIPTION_MAX_CHARS,
  describeValue,
  isHttpsUrl,
  isUuid,
  parseDuration,
  scriptLengthProblem,
  unstorableText,
} from "../../contract/index.js";
import { checkScript } from "../../routeros/catalog/check-script.js";
import { commandTreeFor, isRouterOsVersion } from "../../routeros/catalog/command-tree.js";
import { BACKING_RESOURCES } from "./backing-resource.js";
import { ConstructValidationError } from "./errors.js";

/** Props after defaults and joining of script lines: what the rules see. */
export interface ResolvedScript {
  readonly routerId: string;
  readonly description: string;
  readonly script: string;
  readonly destroyScript: string | undefined;
  readonly destroyDescription: string | undefined;
  readonly notifyUrl: string | undefined;
  readonly timeout: string;
  readonly waitFor: string;
  readonly resource: string;
  readonly cli: string;
  readonly routerOsVersion: string;
  readonly checkCommands: boolean;
  readonly api: string | undefined;
  readonly rollback: string | undefined;
  readonly makeBackup: boolean;
  /** `safeChange.confirmWithin`, when a safe change is asked for. */
  readonly safeChangeConfirmWithin: string | undefined;
}

/** The props that hold text: the ones the rules table checks. */
type TextField = {
  [K in keyof ResolvedScript]: ResolvedScript[K] extends string | undefined ? K : never;
}[keyof ResolvedScript];

/**
 * Returns what is wrong with a value (read after the field name), or undefined when it passes. `props` is
 * there for checks that depend on another prop (a script on `routerOsVersion`).
 */
type Check = (value: string, props: ResolvedScript) => string | undefined;

const notEmpty: Check = (value) => (value.length === 0 ? "must not be empty" : undefined);

const atMost =
  (max: number): Check =>
  (value) => {
    const chars = charCount(value);
    return chars > max ? `must be at most ${max} characters (got ${chars})` : undefined;
  };

/** Syntax, then every menu, command and argument name against the tree of the router's RouterOS version. */
const parses: Check = (value, props) =>
  checkScript(value, { tree: commandTreeFor(props.routerOsVersion), checkCommands: props.checkCommands })
    ?.message;

const oneOf =
  (allowed: readonly string[]): Check =>
  (value) =>
    allowed.includes(value)
      ? undefined
      : `must be one of ${allowed.join(", ")} (got ${describeValue(value)})`;

/** The script limits of the profile the construct submits through (its `api`, the spec's when unset or unknown). */
const fitsProfile: Check = (value, props) =>
  scriptLengthProblem(value, isApiProfileName(props.api) ? props.api : DEFAULT_API_PROFILE);

/**
 * What the provider (`resource: "provider"`) does not take per resource: its block's settings apply to every
 * resource, and what `routerjobs apply` does around a job (a rollback, a safe change's confirmation) it does not
 * do yet (docs/provider.md).
 */
const underProvider =
  (why: string, set: (value: string, props: ResolvedScript) => boolean = () => true): Check =>
  (value, props) =>
    props.resource === "provider" && set(value, props)
      ? `cannot be set with resource: "provider": ${why}`
      : undefined;

const scriptChecks = [notEmpty, fitsProfile, unstorableText, parses];
const descriptionChecks = [notEmpty, atMost(DESCRIPTION_MAX_CHARS), unstorableText];

/**
 * The rules, one row per prop, checked in order; a field reports only its first broken check (a 5000
 * character script is not parsed). Optional props are checked only when set.
 */
const RULES: readonly {
  readonly field: TextField;
  /** The prop as the user wrote it, where it differs from the field. */
  readonly label?: string;
  readonly checks: readonly Check[];
}[] = [
  {
    field: "routerId",
    checks: [
      (value) => (isUuid(value) ? undefined : `must be a lowercase UUID (got ${describeValue(value)})`),
    ],
  },
  { field: "description", checks: descriptionChecks },
  // Before the scripts: they are checked against this version's tree.
  {
    field: "routerOsVersion",
    checks: [
      (value) =>
        isRouterOsVersion(value)
          ? undefined
          : `must be a RouterOS version like 7.24 or 7.24.1 (got ${describeValue(value)})`,
    ],
  },
  { field: "script", checks: scriptChecks },
  { field: "destroyScript", checks: scriptChecks },
  {
    field: "destroyDescription",
    checks: [
      ...descriptionChecks,
      // Undeclared, it is the description.
      underProvider(
        'the provider describes the destroy script\'s job as "destroy: " and the description',
        (value, props) => value !== props.description,
      ),
    ],
  },
  {
    field: "notifyUrl",
    checks: [
      (value) =>
        isHttpsUrl(value) ? undefined : `must be an absolute https URL (got ${describeValue(value)})`,
    ],
  },
  {
    field: "timeout",
    checks: [
      (value) => {
        try {
          parseDuration(value);
          return undefined;
        } catch {
          return `must be a number followed by ms, s, m or h, like 90s or 10m (got ${describeValue(value)})`;
        }
      },
    ],
  },
  {
    field: "waitFor",
    checks: [
      oneOf(WAIT_MODES),
      underProvider("set wait_for in the provider block, for every resource", (value) => value !== "auto"),
    ],
  },
  {
    field: "api",
    checks: [
      oneOf(API_PROFILES),
      underProvider("set api_profile in the provider block (or ROUTERJOBS_API), for every resource"),
      (value, props) =>
        value === "sdx" && props.notifyUrl !== undefined
          ? "sdx (the sites API) takes no notify_url: leave notifyUrl unset, apply confirms by polling"
          : undefined,
    ],
  },
  {
    field: "rollback",
    checks: [
      oneOf(ROLLBACK_MODES),
      (_value, props) =>
        props.makeBackup
          ? undefined
          : 'needs makeBackup: true: "on-failure" restores the router from the backup the job takes',
    ],
  },
  {
    field: "safeChangeConfirmWithin",
    label: "safeChange.confirmWithin",
    checks: [
      underProvider(
        'the provider does not confirm a safe change yet, and an unconfirmed one reverts: use resource "terraform_data" with routerjobs deploy',
      ),
      (value) => {
        const problem = `must be a duration from ${SAFE_CHANGE_MIN} to ${SAFE_CHANGE_MAX}, like 2m (got ${describeValue(value)})`;
        try {
          const ms = parseDuration(value);
          return ms >= parseDuration(SAFE_CHANGE_MIN) && ms <= parseDuration(SAFE_CHANGE_MAX)
            ? undefined
            : problem;
        } catch {
          return problem;
        }
      },
    ],
  },
  { field: "resource", checks: [oneOf(BACKING_RESOURCES)] },
  {
    field: "cli",
    checks: [notEmpty, (value) => (/[\r\n]/.test(value) ? "must be a single line" : undefined)],
  },
];

/** A deadline shorter than a job's round trip would revert every change; a longer one leaves a router cut off. */
export const SAFE_CHANGE_MIN = "10s";
export const SAFE_CHANGE_MAX = "1h";

/** Throws one ConstructValidationError listing every broken rule, each named with the construct path. */
export function validateRouterScript(path: string, props: ResolvedScript): void {
  const problems: { field: string; message: string }[] = [];
  for (const rule of RULES) {
    const value = props[rule.field];
    if (value === undefined) continue;
    for (const check of rule.checks) {
      const message = check(value, props);
      if (message !== undefined) {
        problems.push({ field: rule.label ?? rule.field, message });
        break;
      }
    }
  }
  if (problems.length > 0) throw new ConstructValidationError(path, problems);
}
