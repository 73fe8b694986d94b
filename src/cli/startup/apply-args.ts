/**
 * The flags of `routerjobs apply` read without commander, for the lean entry (apply-main.ts) that Terraform
 * starts once per declared script. Only the plain forms: anything else (help, an unknown flag, a missing
 * value, an argument) returns undefined, and the full CLI parses the command line instead, so that its
 * messages and help stay the one version users see.
 */
import type { ApplyFlags } from "../apply-run.js";
import { APPLY_FLAGS, CLIENT_FLAGS, flagName, GLOBAL_FLAGS } from "../settings/flag-table.js";

const FLAGS = [...CLIENT_FLAGS, ...APPLY_FLAGS, ...GLOBAL_FLAGS].map((spec) => ({ ...flagName(spec), spec }));
/** Flags that take a value, by their name on the command line. */
const VALUED: Readonly<Record<string, string>> = Object.fromEntries(
  FLAGS.filter((flag) => flag.valued).map((flag) => [flag.name, flag.spec.key]),
);
const SWITCHES: Readonly<Record<string, string>> = Object.fromEntries(
  FLAGS.filter((flag) => !flag.valued).map((flag) => [flag.name, flag.spec.key]),
);

/** `args` follow `apply`; undefined when the full CLI must read them. */
export function parseApplyArgs(args: readonly string[]): ApplyFlags | undefined {
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const equals = arg.indexOf("=");
    const name = arg.startsWith("--") && equals > 0 ? arg.slice(0, equals) : arg;
    const valued = VALUED[name];
    if (valued !== undefined) {
      const value = equals > 0 && name !== arg ? arg.slice(equals + 1) : args[++i];
      if (value === undefined) return undefined;
      flags[valued] = value;
      continue;
    }
    const toggle = SWITCHES[arg];
    if (toggle === undefined) return undefined;
    flags[toggle] = true;
  }
  return flags as ApplyFlags;
}
