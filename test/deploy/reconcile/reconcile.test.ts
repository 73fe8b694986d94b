import { describe, expect, it } from "vitest";
import { tagOf } from "../../../src/contract/attempt-marker.js";
import type { JobListItem } from "../../../src/contract/job.js";
import { report } from "../../../src/deploy/reconcile/deploy.js";
import { deployKnowledge, judge, type Reconciliation } from "../../../src/deploy/reconcile/reconcile.js";
import {
  jobResourcesOf,
  type StateResource,
  stateIdentityText,
} from "../../../src/deploy/terraform/state.js";
import { listedJob } from "../apply/listed-job.js";

const ROUTER = "a1000000-0000-4000-8000-000000000001";
const identity = {
  router_id: ROUTER,
  resource: "office/edge-1/dns",
  job_key: "k".repeat(64),
  description: "dns",
};

/** `terraform show -json` of a state with one job resource in a child module and one unrelated resource. */
const shown = (tainted = false) => ({
  values: {
    root_module: {
      resources: [
        {
          address: "terraform_data.other",
          mode: "managed",
          type: "terraform_data",
          values: { id: "x", input: null },
        },
      ],
      child_modules: [
        {
          resources: [
            {
              address: "module.dns.terraform_data.job",
              mode: "managed",
              type: "terraform_data",
              tainted,
              values: {
                id: "instance-1",
                input: { routerjobs: stateIdentityText(identity), cli: "routerjobs" },
              },
            },
          ],
        },
      ],
    },
  },
});

function listed(status: JobListItem["status"], definition = identity.job_key, seq = 1): JobListItem {
  const marker = {
    resourceTag: tagOf(identity.resource),
    definitionTag: tagOf(definition),
    instanceTag: tagOf("instance-1"),
    attempt: 1,
  };
  return listedJob(status, marker, seq, `j${seq}`);
}

describe("reconcile: the state's job resources against the routers' job lists", () => {
  const [resource] = jobResourcesOf(shown()) as [StateResource];

  it("finds job resources in modules by their identity, and nothing else", () => {
    expect(jobResourcesOf(shown())).toEqual([
      { address: "module.dns.terraform_data.job", instanceId: "instance-1", tainted: false, identity },
    ]);
    expect(jobResourcesOf({ format_version: "1.0" })).toEqual([]);
  });

  it("refuses a state whose identity is not one, naming the resource", () => {
    const broken = shown();
    const job = broken.values.root_module.child_modules[0]?.resources[0] as {
      values: { input: Record<string, string> };
    };
    job.values.input.routerjobs = "{}";
    expect(() => jobResourcesOf(broken)).toThrow(/module\.dns\.terraform_data\.job: input\.routerjobs/);
  });

  it("judges each change by its latest attempt", () => {
    expect(judge(resource, []).verdict).toBe("missing");
    expect(judge(resource, [listed("running")]).verdict).toBe("in-flight");
    expect(judge(resource, [listed("completed")]).verdict).toBe("ok");
    expect(judge(resource, [listed("failed")]).verdict).toBe("failed");
    expect(judge(resource, [listed("deleted")]).verdict).toBe("failed");
    // a newer job of another definition of the same resource (a revert, a destroy job) undid it
    expect(
      judge(resource, [listed("completed", "other", 2), listed("completed", identity.job_key, 1)]).verdict,
    ).toBe("missing");
    expect(judge(jobResourcesOf(shown(true))[0] as StateResource, []).verdict).toBe("tainted");
  });

  it("says a tainted resource's verdict once in its line", async () => {
    const tainted = judge(jobResourcesOf(shown(true))[0] as StateResource, []);
    const lines: string[] = [];
    const reconciliation = {
      findings: [tainted],
      jobsByRouter: new Map([[ROUTER, []]]),
      unreadable: new Map(),
    };
    // The client is asked only for a failure's reason: a tainted resource has none to read.
    await report(reconciliation, { client: undefined as never, write: (line) => lines.push(line) });
    expect(lines[0]).toMatch(
      /^routerjobs: office\/edge-1\/dns \(module\.dns\.terraform_data\.job\): tainted, the next apply replaces it/,
    );
    expect(lines[0]).not.toMatch(/tainted.*tainted/);
  });

  it("hands the provisioners the lists (routerjobs' own jobs only) and the state's instances", () => {
    const byHand = { ...listed("completed", identity.job_key, 9), description: "by hand" };
    const reconciliation: Reconciliation = {
      findings: [judge(resource, [])],
      jobsByRouter: new Map([[ROUTER, [listed("completed", "other", 2), byHand]]]),
      unreadable: new Map(),
    };
    const knowledge = deployKnowledge(reconciliation);
    expect(knowledge.routers[ROUTER]?.map((job) => job.id)).toEqual(["j2"]);
    expect(knowledge.resources[identity.resource]).toEqual({
      instances: [tagOf("instance-1")],
      tainted: false,
    });
  });
});
