import { expect } from "vitest";
import type { CommandCall, RosValue } from "../../../src/routeros/language/host.js";
import { SimulatedRouter, type SimulatedRouterOptions } from "../../../src/routeros/simulator/router.js";

export const fixedNow = () => new Date("2026-11-22T10:00:00Z");

/** A router at its model's factory state (the default five-port CHR has no defconf). */
export function freshRouter(
  name = "lab",
  options: Pick<SimulatedRouterOptions, "model" | "defaults"> = {},
): SimulatedRouter {
  return new SimulatedRouter({ name, now: fixedNow, delayScale: 0, ...options });
}

/** Runs a script that must succeed and returns its output. */
export async function run(router: SimulatedRouter, script: string): Promise<string> {
  const outcome = await router.runScript(script);
  if (!outcome.ok) expect.fail(`script failed: ${outcome.error}`);
  return outcome.output;
}

/** Runs a script that must fail and returns the router's error text (with position). */
export async function fail(router: SimulatedRouter, script: string): Promise<string> {
  const outcome = await router.runScript(script);
  if (outcome.ok) expect.fail(`script should have failed: ${script}`);
  return outcome.error;
}

/** A resolved command as the interpreter hands it over, for tests below the language. */
export function call(
  path: string,
  verb: string,
  named: Record<string, RosValue> = {},
  positional: RosValue[] = [],
): CommandCall {
  return {
    menu: path.split(" ").filter(Boolean),
    verb,
    positional,
    named: new Map(Object.entries(named)),
    line: 1,
    column: 1,
  };
}
