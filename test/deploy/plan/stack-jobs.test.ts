import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RouterConfig } from "../../../src/deploy/constructs/index.js";
import { appliedJobKeys } from "../../../src/deploy/plan/applied-jobs.js";
import { readStackJobs, stackFile, stackJobs } from "../../../src/deploy/plan/stack-jobs.js";
import { ROUTER_A, ROUTER_A2 } from "../../service/harness.js";
import { synthStack } from "./fixtures.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("reading a synthesized stack's jobs", () => {
  it("finds every create-phase job in Terraform's order, not the destroy ones", async () => {
    const dir = synthStack((stack) => {
      // Declared so that alphabetical order (cdk.tf.json's) and dependency order differ.
      new RouterConfig(stack, "edge", {
        routerId: ROUTER_A,
        sections: [
          {
            name: "zz-first",
            script: "/ip dns set servers=1.1.1.1",
            destroyScript: '/ip dns set servers=""',
          },
          { name: "aa-second", script: "/system identity set name=edge" },
        ],
      });
      new RouterConfig(stack, "home", {
        routerId: ROUTER_A2,
        sections: [{ name: "dns", script: "/ip dns set servers=9.9.9.9" }],
      });
    });
    const jobs = await readStackJobs(await stackFile(dir));
    const edge = jobs.filter((entry) => entry.job.router_id === ROUTER_A).map((entry) => entry.job.resource);
    expect(edge).toEqual(["office/edge/zz-first", "office/edge/aa-second"]);
    expect(jobs.every((entry) => entry.job.phase === "create")).toBe(true);
    expect(jobs).toHaveLength(3);
  });

  it("refuses a missing stack, a file that is not JSON, an expression and a cycle, naming what is wrong", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rj-stack-"));
    dirs.push(dir);
    await expect(stackFile(dir)).rejects.toThrow(/holds no cdk.tf.json or main.tf.json/);
    writeFileSync(join(dir, "main.tf.json"), "{ not json");
    await expect(readStackJobs(await stackFile(dir))).rejects.toThrow(/main.tf.json is not Terraform JSON/);
    const expression = {
      resource: {
        terraform_data: {
          job: { provisioner: [{ "local-exec": { environment: { ROUTERJOBS_JOB: `$${"{"}local.job}` } } }] },
        },
      },
    };
    expect(() => stackJobs(expression)).toThrow(
      /terraform_data.job computes ROUTERJOBS_JOB with a Terraform expression/,
    );
    const broken = {
      resource: {
        terraform_data: { job: { provisioner: { "local-exec": { environment: { ROUTERJOBS_JOB: "{}" } } } } },
      },
    };
    expect(() => stackJobs(broken)).toThrow(/terraform_data.job: ROUTERJOBS_JOB is not a valid job: version/);
  });

  it("reads applied job keys from a terraform.tfstate and from terraform show -json, skipping tainted ones", () => {
    const identity = (key: string) =>
      JSON.stringify({ router_id: ROUTER_A, resource: "r", job_key: key, description: "d" });
    const v4 = {
      version: 4,
      resources: [
        {
          mode: "managed",
          type: "terraform_data",
          instances: [
            {
              attributes: {
                input: { value: { routerjobs: identity("a".repeat(64)) }, type: ["object", {}] },
              },
            },
            { status: "tainted", attributes: { input: { value: { routerjobs: identity("b".repeat(64)) } } } },
          ],
        },
      ],
    };
    expect([...appliedJobKeys(v4)]).toEqual(["a".repeat(64)]);
    const shown = {
      values: {
        root_module: {
          resources: [
            {
              address: "terraform_data.x",
              mode: "managed",
              type: "terraform_data",
              values: { id: "1", input: { routerjobs: identity("c".repeat(64)) } },
            },
          ],
        },
      },
    };
    expect([...appliedJobKeys(shown)]).toEqual(["c".repeat(64)]);
    expect(() => appliedJobKeys({ version: 3 }, "old.tfstate")).toThrow(
      /old.tfstate is neither a terraform.tfstate \(version 4\)/,
    );
  });
});
