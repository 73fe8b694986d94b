// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are RouterOS text holding Terraform template introducers, not JS templates
/**
 * `resource: "provider"`: the constructs emit the provider's `routerjobs_script` (docs/provider.md) with the job's
 * definition as its attributes, a `routerjobs` provider block and its source in `required_providers`, the same
 * under cdktf and cdktn; what the provider does not take per resource is refused at synth, naming the prop.
 */
import type { Construct } from "constructs";
import { describe, expect, it } from "vitest";
import {
  ConstructValidationError,
  Fleet,
  RouterConfig,
  RouterScript,
} from "../../../src/deploy/constructs/index.js";
import { jobOf } from "../../../src/deploy/provider/script-resource.js";
import { PROVIDER_SOURCE } from "../../../src/deploy/terraform/provider-address.js";
import { testingApp } from "../../helpers/scratch.js";
import { FRAMEWORK_NAMES, loadFramework, smallSections, terraformPart } from "./framework-stack.js";
import { ROUTER_A, ROUTER_B, synth } from "./support.js";

interface ScriptAttributes {
  readonly router_id: string;
  readonly script: string;
  readonly description: string;
  readonly name: string;
  readonly make_backup: boolean;
  readonly express?: boolean;
  readonly needs_ack: boolean;
  readonly notify_url?: string;
  readonly timeout: string;
  readonly destroy_script?: string;
  readonly depends_on?: string[];
  readonly provisioner?: unknown;
}

interface Synthesized {
  readonly terraform?: { required_providers?: Record<string, { source: string; version?: string }> };
  readonly provider?: Record<string, unknown[]>;
  readonly resource?: Record<string, Record<string, ScriptAttributes>>;
}

const scriptsOf = (text: string) => (JSON.parse(text) as Synthesized).resource?.routerjobs_script ?? {};

describe('resource: "provider"', () => {
  it("writes each section as a routerjobs_script with the job's definition, after the section before it", () => {
    // GIVEN a router's config of two sections, one with a destroy script, backed by the provider
    const text = synth((stack) => {
      new RouterConfig(stack, "edge-a", {
        routerId: ROUTER_A,
        resource: "provider",
        timeout: "90s",
        sections: smallSections("1.1.1.1"),
      });
    });
    const json = JSON.parse(text) as Synthesized;
    // THEN there is no terraform_data and no provisioner: the provider runs the jobs
    expect(Object.keys(json.resource ?? {})).toEqual(["routerjobs_script"]);
    const scripts = Object.entries(scriptsOf(text));
    expect(scripts).toHaveLength(2);
    const [identityName, identity] = scripts.find(([, s]) => s.description === "identity") ?? [];
    const [, dns] = scripts.find(([, s]) => s.description === "dns servers") ?? [];
    expect(identity).toEqual({
      router_id: ROUTER_A,
      script: '/system identity set name="edge a"',
      description: "identity",
      name: "office/edge-a/identity",
      make_backup: true,
      express: true,
      needs_ack: true,
      timeout: "90s",
    });
    expect(dns).toMatchObject({
      script: "/ip dns set servers=1.1.1.1",
      destroy_script: '/ip dns set servers=""',
      name: "office/edge-a/dns",
      depends_on: [`routerjobs_script.${identityName}`],
    });
    // AND the provider is configured once, from the environment (no settings in the JSON), at its own source
    expect(json.provider?.routerjobs).toEqual([{}]);
    expect(json.terraform?.required_providers?.routerjobs).toEqual({ source: PROVIDER_SOURCE });
  });

  it("gives each job the key the provider computes from its attributes, so a wave check finds it", () => {
    let declared: RouterScript | undefined;
    let undeclared: RouterScript | undefined;
    const text = synth((stack) => {
      declared = new RouterScript(stack, "a", {
        routerId: ROUTER_A,
        resource: "provider",
        script: "/ip dns set servers=1.1.1.1",
        expressExecute: false,
        notifyUrl: "https://hooks.example.net/rj",
      });
      undeclared = new RouterScript(stack, "b", {
        routerId: ROUTER_A,
        resource: "provider",
        script: "/ip dns print",
      });
    });
    const scripts = Object.values(scriptsOf(text));
    for (const [construct, attributes] of [
      [declared, scripts.find((s) => s.name === "office/a")],
      [undeclared, scripts.find((s) => s.name === "office/b")],
    ] as const) {
      const job = jobOf({ ...attributes, express: attributes?.express ?? null } as never, "create");
      expect([job.resource, job.job_key]).toEqual([construct?.job.resource, construct?.job.job_key]);
    }
  });

  it("keeps Terraform's template sequences of a script literal, and declared flags as declared", () => {
    const text = synth((stack) => {
      new RouterScript(stack, "a", {
        routerId: ROUTER_A,
        resource: "provider",
        script: '# ${x}\n/system identity set name="%{y}"',
        description: "templates",
        expressExecute: false,
        makeBackup: false,
        needsAcknowledgement: false,
        notifyUrl: "https://hooks.example.net/rj",
      });
      new RouterScript(stack, "b", {
        routerId: ROUTER_A,
        resource: "provider",
        script: "/ip dns set servers=1.1.1.1",
        rollback: "on-failure",
      });
    });
    const [script, withRollback] = Object.values(scriptsOf(text));
    expect(withRollback).toMatchObject({ rollback: "on-failure", make_backup: true });
    expect(script).toMatchObject({
      script: '# $${x}\n/system identity set name="%%{y}"',
      express: false,
      make_backup: false,
      needs_ack: false,
      notify_url: "https://hooks.example.net/rj",
      timeout: "10m",
    });
  });

  it("adds no provider block of its own to a stack that configures routerjobs itself", async () => {
    const cdktf = await loadFramework("cdktf");
    const stack = new cdktf.TerraformStack(testingApp(cdktf.Testing), "office");
    // A user's own provider block (here the twin turned off), as cdktf's escape hatch writes one.
    class Own extends cdktf.TerraformProvider {
      constructor(scope: Construct) {
        super(scope, "mine", {
          terraformResourceType: "routerjobs",
          terraformProviderSource: PROVIDER_SOURCE,
        });
      }
      protected override synthesizeAttributes() {
        return { plan_twin: false };
      }
    }
    new Own(stack);
    for (const id of ["a", "b"])
      new RouterScript(stack, id, { routerId: ROUTER_A, resource: "provider", script: "/ip dns print" });
    const json = JSON.parse(cdktf.Testing.synth(stack)) as Synthesized;
    expect(json.provider?.routerjobs).toEqual([{ plan_twin: false }]);
  });

  it("synthesizes the same Terraform configuration under cdktf and cdktn", async () => {
    const parts = [];
    for (const name of FRAMEWORK_NAMES) {
      const cdk = await loadFramework(name);
      const stack = new cdk.TerraformStack(testingApp(cdk.Testing), "office");
      new Fleet(stack, "fleet", {
        routers: [
          { name: "edge-a", routerId: ROUTER_A },
          { name: "edge-b", routerId: ROUTER_B },
        ],
        resource: "provider",
        sections: () => smallSections("9.9.9.9"),
      });
      parts.push(terraformPart(cdk.Testing.synth(stack)));
    }
    expect(parts[1]).toEqual(parts[0]);
    expect(Object.keys((parts[0] as Synthesized).resource?.routerjobs_script ?? {})).toHaveLength(4);
  });

  it.each([
    ["api", { api: "sdx" }, /api_profile in the provider block/],
    ["waitFor", { waitFor: "poll" }, /wait_for in the provider block/],
    ["safeChange.confirmWithin", { safeChange: { confirmWithin: "2m" } }, /does not confirm a safe change/],
    [
      "destroyDescription",
      { destroyScript: '/ip dns set servers=""', destroyDescription: "undo dns" },
      /describes the destroy script's job/,
    ],
  ] as const)("refuses %s, naming it and what to do instead", (field, extra, why) => {
    let error: unknown;
    try {
      synth((stack) => {
        new RouterScript(stack as unknown as Construct, "a", {
          routerId: ROUTER_A,
          resource: "provider",
          script: "/ip dns set servers=1.1.1.1",
          ...extra,
        });
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConstructValidationError);
    const message = (error as Error).message;
    expect(message).toContain(field);
    expect(message).toContain('resource: "provider"');
    expect(message).toMatch(why);
  });
});
