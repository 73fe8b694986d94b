/**
 * Shared test support: cdktf's resource matcher made a vitest matcher (cdktf ships one for jest only), and
 * small readers of the synthesized JSON.
 */
import { TerraformStack, Testing } from "cdktf";
import { getToHaveResourceWithProperties } from "cdktf/lib/testing/matchers.js";
import { expect } from "vitest";
import { testingApp } from "../../helpers/scratch.js";

export const ROUTER_A = "3f1c6a52-8b1e-4a57-9a64-1d2e3f4a5b6c";
export const ROUTER_B = "9d8e7f6a-5b4c-4d3e-8f2a-1b0c9d8e7f6a";

expect.extend({
  toHaveResourceWithProperties(
    received: string,
    resourceType: string,
    properties: Record<string, unknown> = {},
  ) {
    // toMatchObject semantics (deep subset, vitest's asymmetric matchers) instead of cdktf's own comparison.
    const matches = (items: Record<string, unknown>, expected: Record<string, unknown>) =>
      Object.values(items).some((item) => {
        try {
          expect(item).toMatchObject(expected);
          return true;
        } catch {
          return false;
        }
      });
    const result = getToHaveResourceWithProperties(matches)(
      received,
      { tfResourceType: resourceType },
      properties,
    );
    return { pass: result.pass, message: () => result.message };
  },
});

declare module "vitest" {
  // biome-ignore lint/suspicious/noExplicitAny: must repeat vitest's own declaration to merge with it
  interface Matchers<T = any> {
    toHaveResourceWithProperties(resourceType: string, properties?: Record<string, unknown>): T;
  }
}

export interface LocalExec {
  readonly command: string;
  readonly environment: Record<string, string>;
  readonly when?: string;
  readonly quiet?: boolean;
}

export interface SynthResource {
  readonly depends_on?: string[];
  readonly provisioner?: { "local-exec": LocalExec }[];
  readonly triggers_replace?: Record<string, string>;
  readonly triggers?: Record<string, string>;
  readonly input?: Record<string, string>;
}

export interface SynthOutput {
  readonly resource?: Record<string, Record<string, SynthResource>>;
  readonly provider?: Record<string, unknown[]>;
}

/** Builds constructs in a fresh stack named `office` and returns the synthesized JSON text. */
export function synth(build: (stack: TerraformStack) => void): string {
  const stack = new TerraformStack(testingApp(Testing), "office");
  build(stack);
  return Testing.synth(stack);
}

/** Every resource of one type, keyed by its Terraform name. */
export function resourcesOf(text: string, type = "terraform_data"): Record<string, SynthResource> {
  return (JSON.parse(text) as SynthOutput).resource?.[type] ?? {};
}

/** The one resource whose Terraform name starts with the given construct path (joined with `_`). */
export function resourceAt(text: string, path: string, type = "terraform_data"): SynthResource {
  const prefix = `${path.replaceAll("/", "_")}_job_`;
  const found = Object.entries(resourcesOf(text, type)).filter(([name]) => name.startsWith(prefix));
  if (found.length !== 1) throw new Error(`expected one ${type} at ${path}, found ${found.length}`);
  return (found[0] as [string, SynthResource])[1];
}

export function provisioners(resource: SynthResource): LocalExec[] {
  return (resource.provisioner ?? []).map((entry) => entry["local-exec"]);
}
