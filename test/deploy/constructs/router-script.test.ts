// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are Terraform expressions and RouterOS text, not JS templates
import { Testing } from "cdktf";
import { describe, expect, it } from "vitest";
import { jobKey } from "../../../src/contract/apply-job.js";
import { helpers, parseApplyJob, RouterScript } from "../../../src/deploy/constructs/index.js";
import { provisioners, ROUTER_A, resourceAt, resourcesOf, synth } from "./support.js";

const SCRIPT = "/ip dns set servers=1.1.1.1";

describe("RouterScript", () => {
  it("submits the job through `routerjobs apply` from a terraform_data with the documented defaults", () => {
    // GIVEN a script with only the required props
    // WHEN it is synthesized
    const text = synth((stack) => new RouterScript(stack, "dns", { routerId: ROUTER_A, script: SCRIPT }));

    // THEN a terraform_data carries a quiet local-exec of `routerjobs apply` with the job as JSON
    expect(text).toHaveResourceWithProperties("terraform_data", {
      provisioner: [
        {
          "local-exec": {
            command: "routerjobs apply",
            quiet: true,
            environment: { ROUTERJOBS_JOB: expect.any(String), ROUTERJOBS_INSTANCE_ID: "${self.id}" },
          },
        },
      ],
    });
    const [create] = provisioners(resourceAt(text, "dns"));
    const job = parseApplyJob(create?.environment.ROUTERJOBS_JOB ?? "");
    expect(job).toMatchObject({
      version: 1,
      phase: "create",
      resource: "office/dns",
      router_id: ROUTER_A,
      description: "office/dns",
      script: SCRIPT,
      make_backup: true,
      needs_acknowledgement: true,
      wait_for: "auto",
      timeout_ms: 600_000,
    });
    // Express is left to `routerjobs apply` (express by default), keyed as the `false` written before it was
    // the default: a stack synthesized before keeps every job key, so upgrading runs nothing again.
    expect(job).not.toHaveProperty("express_execute");
    expect(job.job_key).toBe(jobKey({ ...job, express_execute: false }));
    expect(job.job_key).not.toBe(jobKey({ ...job, express_execute: true }));
    expect(job).not.toHaveProperty("notify_url");
    expect(job).not.toHaveProperty("api");
    // AND the job key is what Terraform compares to decide on a re-run
    expect(resourceAt(text, "dns").triggers_replace).toEqual({ job_key: job.job_key });
    // AND the state keeps the job's identity (and nothing else without a destroy script), for reconcile
    expect(resourceAt(text, "dns").input).toEqual({
      routerjobs: JSON.stringify({
        router_id: job.router_id,
        resource: job.resource,
        job_key: job.job_key,
        description: job.description,
      }),
    });
  });

  it("passes every prop into the job and the command", () => {
    // GIVEN every optional prop set
    const text = synth(
      (stack) =>
        new RouterScript(stack, "reboot", {
          routerId: ROUTER_A,
          script: "/system reboot",
          description: "reboot after upgrade",
          makeBackup: false,
          expressExecute: true,
          needsAcknowledgement: false,
          notifyUrl: "https://hooks.example.net/rj/secret-path",
          timeout: "90s",
          waitFor: "poll",
          cli: "npx routerjobs",
        }),
    );
    // THEN the job and the command carry them
    const [create] = provisioners(resourceAt(text, "reboot"));
    expect(create?.command).toBe("npx routerjobs apply");
    expect(parseApplyJob(create?.environment.ROUTERJOBS_JOB ?? "")).toMatchObject({
      description: "reboot after upgrade",
      make_backup: false,
      express_execute: true,
      needs_acknowledgement: false,
      notify_url: "https://hooks.example.net/rj/secret-path",
      timeout_ms: 90_000,
      wait_for: "poll",
    });
  });

  it("carries a declared API profile in the job, outside the job key", () => {
    const jobOf = (api?: "spec" | "sdx") => {
      const text = synth(
        (stack) =>
          new RouterScript(stack, "dns", { routerId: ROUTER_A, script: SCRIPT, ...(api ? { api } : {}) }),
      );
      const [create] = provisioners(resourceAt(text, "dns"));
      return parseApplyJob(create?.environment.ROUTERJOBS_JOB ?? "");
    };
    const sdx = jobOf("sdx");
    expect(sdx.api).toBe("sdx");
    // Changing the API a job goes through does not run it again on the router.
    expect(sdx.job_key).toBe(jobOf().job_key);
  });

  it("joins builder lines with newlines", () => {
    // GIVEN a script given as lines
    let script: RouterScript | undefined;
    synth((stack) => {
      script = new RouterScript(stack, "s", {
        routerId: ROUTER_A,
        script: ["/ip dns set servers=1.1.1.1", SCRIPT],
      });
    });
    // THEN the job's script is the lines joined
    expect(script?.job.script).toBe(`/ip dns set servers=1.1.1.1\n${SCRIPT}`);
  });

  it("takes helper lines as the script and checks their joined length", () => {
    // GIVEN lines from the RouterOS helpers
    const lines = [helpers.identity("edge-1"), helpers.dnsServers(["1.1.1.1"])];
    let script: RouterScript | undefined;
    synth((stack) => {
      script = new RouterScript(stack, "base", { routerId: ROUTER_A, script: lines });
    });
    expect(script?.job.script).toBe("/system identity set name=edge-1\n/ip dns set servers=1.1.1.1");
    // AND too many of them are refused at synth time with the joined length
    const many = Array.from({ length: 12 }, (_, i) =>
      helpers.firewallFilter({
        chain: "input",
        action: "accept",
        "src-address": `10.0.${i}.0/24`,
        comment: `managed: rule ${i}`,
      }),
    );
    expect(() =>
      synth((stack) => new RouterScript(stack, "fw", { routerId: ROUTER_A, script: many })),
    ).toThrow(
      /^office\/fw: script must be at most 2000 characters on the spec API \(got \d{4}\); the sdx API takes up to 10000$/,
    );
  });

  it("keeps Terraform template sequences of the script and description literal", () => {
    // GIVEN a valid script containing ${ and %{, and a description with an already doubled $${
    const script = '/system identity set name="a \\${b} %{c}"';
    const description = "edge $${d} %{e}";
    const text = synth((stack) => new RouterScript(stack, "s", { routerId: ROUTER_A, script, description }));
    // THEN the synthesized string doubles each introducer, which Terraform reads back as the original
    // (terraform.test.ts checks that read-back with the real Terraform)
    const env = provisioners(resourceAt(text, "s"))[0]?.environment.ROUTERJOBS_JOB ?? "";
    expect(env).toContain("a \\\\$${b} %%{c}");
    expect(env).toContain("edge $$${d} %%{e}");
    const job = parseApplyJob(env.replace(/([$%])\1\{/g, "$1{"));
    expect([job.script, job.description]).toEqual([script, description]);
  });

  it("puts the destroy job in state and the destroy provisioner references only self", () => {
    // GIVEN a script with a destroy script
    const text = synth(
      (stack) =>
        new RouterScript(stack, "dns", {
          routerId: ROUTER_A,
          script: SCRIPT,
          destroyScript: '/ip dns set servers=""',
          destroyDescription: "remove dns",
        }),
    );
    const resource = resourceAt(text, "dns");
    const destroy = provisioners(resource).find((entry) => entry.when === "destroy");

    // THEN the destroy-time provisioner's expressions all start with self.
    const expressions = [...JSON.stringify(destroy).matchAll(/\$\{([^}]*)\}/g)].map((match) => match[1]);
    expect(expressions).toEqual(["self.id", "self.input.destroy_job"]);
    // AND the destroy job it reads is in `input` (an in-place update: editing it does not re-run the script)
    const job = parseApplyJob(resource.input?.destroy_job ?? "");
    expect(job).toMatchObject({
      phase: "destroy",
      script: '/ip dns set servers=""',
      description: "remove dns",
    });
    expect(resource.triggers_replace).not.toHaveProperty("destroy_job");
  });

  it("can be backed by null_resource, adding the null provider once", () => {
    // GIVEN two null_resource scripts with destroy scripts in one stack
    const text = synth((stack) => {
      for (const id of ["a", "b"]) {
        new RouterScript(stack, id, {
          routerId: ROUTER_A,
          script: SCRIPT,
          destroyScript: '/ip dns set servers=""',
          resource: "null_resource",
        });
      }
    });
    // THEN both are null_resources whose triggers carry the job key and the destroy job
    expect(Object.keys(resourcesOf(text, "terraform_data"))).toHaveLength(0);
    const resource = resourceAt(text, "a", "null_resource");
    expect(Object.keys(resource.triggers ?? {}).sort()).toEqual(["destroy_job", "job_key"]);
    expect(provisioners(resource).find((entry) => entry.when === "destroy")?.environment.ROUTERJOBS_JOB).toBe(
      "${self.triggers.destroy_job}",
    );
    // AND the stack configures the null provider exactly once
    expect(Testing.toHaveProvider(text, "null")).toBe(true);
    expect((JSON.parse(text) as { provider: { null: unknown[] } }).provider.null).toHaveLength(1);
  });

  it("never writes the API token from the environment into the synthesized stack", () => {
    // GIVEN the service settings in the environment of the synth process
    const token = `0b7c4c3e-1f2a-4b5c-9d8e-7f6a5b4c3d2e:1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d:${"Z9".repeat(31)}`;
    const saved = {
      ROUTERJOBS_TOKEN: process.env.ROUTERJOBS_TOKEN,
      ROUTERJOBS_URL: process.env.ROUTERJOBS_URL,
    };
    Object.assign(process.env, {
      ROUTERJOBS_TOKEN: token,
      ROUTERJOBS_URL: "https://rj.internal.example:8443",
    });
    try {
      // WHEN a stack with every construct option is synthesized
      const text = synth((stack) => {
        new RouterScript(stack, "a", { routerId: ROUTER_A, script: SCRIPT, destroyScript: SCRIPT });
        new RouterScript(stack, "b", { routerId: ROUTER_A, script: SCRIPT, resource: "null_resource" });
      });
      // THEN neither the token, its secret, nor the service URL appear in it
      expect(text).not.toContain(token);
      expect(text).not.toContain("Z9Z9Z9");
      expect(text).not.toContain("rj.internal.example");
      expect(text).not.toMatch(/ROUTERJOBS_(TOKEN|URL|CA_FILE)/);
    } finally {
      // Restored key by key: a new object in place of process.env would stop being the process's environment
      // (child processes, and the database thread that shares it, would no longer see changes made to it).
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("can be a dependsOn target of another resource", () => {
    // GIVEN a script that depends on another script construct
    const text = synth((stack) => {
      const first = new RouterScript(stack, "first", { routerId: ROUTER_A, script: SCRIPT });
      new RouterScript(stack, "second", { routerId: ROUTER_A, script: SCRIPT, dependsOn: [first] });
    });
    // THEN the second's resource depends on the first's resource
    expect(resourceAt(text, "second").depends_on).toEqual([
      expect.stringMatching(/^terraform_data\.first_job_[0-9A-F]{8}$/),
    ]);
  });

  it("synthesizes to the same JSON as before (snapshot)", () => {
    const text = synth(
      (stack) =>
        new RouterScript(stack, "dns", {
          routerId: ROUTER_A,
          script: SCRIPT,
          description: "dns servers",
          destroyScript: '/ip dns set servers=""',
        }),
    );
    expect(JSON.parse(text)).toMatchSnapshot();
  });
});
