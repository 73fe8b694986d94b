/**
 * The move from the provisioner form, without Terraform: what a terraform_data's stored state becomes, the
 * sources refused with the fix named, and when a moved object has to run its change again.
 */
import { describe, expect, it } from "vitest";
import { type JobDefinition, jobKey } from "../../../src/contract/apply-job.js";
import { markDescription, tagOf } from "../../../src/contract/attempt-marker.js";
import type { JobListItem } from "../../../src/contract/job.js";
import {
  movedObjectReplaces,
  moveFromTerraformData,
  resolveMove,
  unresolvedMove,
} from "../../../src/deploy/provider/script-move.js";
import { stateIdentityText } from "../../../src/deploy/terraform/state.js";

const ROUTER = "a1000000-0000-4000-8000-0000000000aa";
const BUILTIN = "terraform.io/builtin/terraform";
const definition: JobDefinition = {
  phase: "create",
  router_id: ROUTER,
  description: "dns",
  script: "/ip dns set servers=9.9.9.9",
  make_backup: true,
  needs_acknowledgement: true,
};
/** The constructs' job JSON leaves express out unless it is declared. */
const keyWithoutExpress = jobKey(definition);

function terraformData(input: Record<string, string>) {
  return { id: "instance-1", input: { value: input, type: ["object", {}] }, output: null };
}
const identity = stateIdentityText({
  router_id: ROUTER,
  resource: "office/edge-1/dns",
  job_key: keyWithoutExpress,
  description: "dns",
});

describe("moveFromTerraformData", () => {
  it("carries the job's identity, the instance and the destroy script across, its job left to the refresh", () => {
    const moved = moveFromTerraformData({
      providerAddress: BUILTIN,
      typeName: "terraform_data",
      state: terraformData({
        routerjobs: identity,
        destroy_job: JSON.stringify({ script: '/ip dns set servers=""' }),
      }),
    });
    expect(moved.state).toEqual({
      id: "instance-1",
      router_id: ROUTER,
      description: "dns",
      name: "office/edge-1/dns",
      destroy_script: '/ip dns set servers=""',
    });
    // Unresolved until a refresh has read the job list: a plan without one is refused, not guessed.
    expect(() => movedObjectReplaces(moved.private, { status: null }, definition)).toThrow(/-refresh=false/);
  });

  it("refuses another resource type and a terraform_data that holds no job, naming what to do", () => {
    expect(() =>
      moveFromTerraformData({
        providerAddress: "registry.terraform.io/hashicorp/null",
        typeName: "null_resource",
        state: {},
      }),
    ).toThrow(/moves only from terraform_data .*terraform import/);
    expect(() =>
      moveFromTerraformData({
        providerAddress: BUILTIN,
        typeName: "terraform_data",
        state: terraformData({ other: "x" }),
      }),
    ).toThrow(/holds no routerjobs job \(input\.routerjobs\).*remove its moved block/);
  });
});

describe("movedObjectReplaces", () => {
  const resolved = new TextEncoder().encode(
    JSON.stringify({ moved_job_key: keyWithoutExpress, unresolved: false }),
  );
  const completed = { status: "completed" };

  it("keeps a completed job whose adopted script is the one that ran, express written out or not", () => {
    expect(movedObjectReplaces(resolved, completed, { ...definition, express_execute: true })).toBe(false);
    expect(movedObjectReplaces(resolved, completed, definition)).toBe(false);
  });

  it("replaces when the adopted script is another, the job did not complete, or the script is not known yet", () => {
    expect(
      movedObjectReplaces(resolved, completed, { ...definition, script: "/ip dns set servers=1.1.1.1" }),
    ).toBe(true);
    expect(movedObjectReplaces(resolved, { status: "failed" }, definition)).toBe(true);
    expect(movedObjectReplaces(resolved, { status: null }, definition)).toBe(true);
    expect(movedObjectReplaces(resolved, completed, undefined)).toBe(true);
  });

  it("leaves every object that was not moved to the schema's own rules", () => {
    expect(movedObjectReplaces(undefined, { status: "failed" }, definition)).toBe(false);
    expect(movedObjectReplaces(new Uint8Array(0), completed, undefined)).toBe(false);
  });
});

describe("resolveMove", () => {
  const moved = moveFromTerraformData({
    providerAddress: BUILTIN,
    typeName: "terraform_data",
    state: terraformData({ routerjobs: identity }),
  });
  const pending = unresolvedMove(moved.private);
  /** A job of this resource as the provisioner form submitted it: its marker names resource, definition, instance. */
  const listed = (seq: number, status: string, key = keyWithoutExpress): JobListItem =>
    ({
      id: `job-${seq}`,
      seq_id: seq,
      status,
      description: markDescription("dns", {
        resourceTag: tagOf("office/edge-1/dns"),
        definitionTag: tagOf(key),
        instanceTag: tagOf("instance-1"),
        attempt: 1,
      }),
      make_backup: true,
      express_execute: true,
      needs_acknowledgement: true,
    }) as JobListItem;
  const resolve = (jobs: JobListItem[]) => {
    if (!pending) throw new Error("the move left no unresolved private data");
    return resolveMove(moved.state, pending, jobs);
  };

  it("finds the completed job, resolves the private data, and says nothing", () => {
    const found = resolve([listed(7, "completed")]);
    expect(found.job?.id).toBe("job-7");
    expect(found.diagnostics).toEqual([]);
    expect(unresolvedMove(found.private)).toBeUndefined();
    expect(movedObjectReplaces(found.private, { status: "completed" }, definition)).toBe(false);
  });

  it("reports a failed job, no job, and a superseded one by name, each to be replaced", () => {
    const failed = resolve([listed(7, "failed")]);
    expect(failed.job?.status).toBe("failed");
    expect(failed.diagnostics.map((d) => d.summary)).toEqual([expect.stringContaining("job #7 failed")]);
    const none = resolve([]);
    expect(none.job).toBeUndefined();
    expect(none.diagnostics.map((d) => d.summary)).toEqual([
      expect.stringContaining("never reached the router"),
    ]);
    // Another definition of the same resource ran after this one: this one has to run again.
    const superseded = resolve([listed(9, "completed", "another-key"), listed(7, "completed")]);
    expect(superseded.job).toBeUndefined();
    expect(superseded.diagnostics.map((d) => d.summary)).toEqual([
      expect.stringContaining("another definition of it ran after this one"),
    ]);
  });

  it("refuses a job still on its way, naming it, so that the plan waits for its end", () => {
    expect(() => resolve([listed(7, "running")])).toThrow(
      /job #7 of "dns" \(moved from terraform_data\) is running/,
    );
  });
});
