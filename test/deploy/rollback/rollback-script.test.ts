/** The restore job's pieces and the wave's choice of backup: pure decisions, no service. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseApplyArgs } from "../../../src/cli/startup/apply-args.js";
import { RouterJobsClient } from "../../../src/client/client.js";
import { jobKey, parseApplyJob } from "../../../src/contract/apply-job.js";
import { markDescription, parseMarker, tagOf } from "../../../src/contract/attempt-marker.js";
import type { JobListItem } from "../../../src/contract/job.js";
import { DESCRIPTION_MAX_CHARS } from "../../../src/contract/limits.js";
import { parseWaveCheck } from "../../../src/contract/wave-check.js";
import { decide } from "../../../src/deploy/job-list/attempts.js";
import { rollBackFailedJob, rollbackWanted } from "../../../src/deploy/rollback/rollback-on-failure.js";
import {
  parseRestoreMarker,
  restoreDescription,
  restoreIdempotencyKey,
  restoreScript,
} from "../../../src/deploy/rollback/rollback-script.js";
import { backupToRestore, restoredAfterWave } from "../../../src/deploy/rollback/rollback-wave.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/index.js";
import { ROUTER_A, TOKEN_A } from "../../service/harness.js";

const RESOURCE = "office/edge-a/vlan";
const JOB_KEY = "a".repeat(64);

function listed(seq: number, description: string, status: JobListItem["status"], makeBackup = true) {
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, "0")}`,
    idempotency_key: `00000000-0000-4000-9000-${String(seq).padStart(12, "0")}`,
    description,
    express_execute: true,
    needs_acknowledgement: true,
    make_backup: makeBackup,
    status,
    seq_id: seq,
  } as JobListItem;
}

const attempt = (
  seq: number,
  n: number,
  status: JobListItem["status"],
  instance = "i-1",
  makeBackup = true,
) =>
  listed(
    seq,
    markDescription("add the guest vlan", {
      resourceTag: tagOf(RESOURCE),
      definitionTag: tagOf(JOB_KEY),
      instanceTag: tagOf(instance),
      attempt: n,
    }),
    status,
    makeBackup,
  );

describe("the restore job's description", () => {
  it("names the backup's job, parses back, and never parses as an attempt of the change", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (path, seq) => {
          const text = restoreDescription(tagOf(path), seq);
          expect([...text].length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
          expect(parseRestoreMarker(text)).toEqual({ resourceTag: tagOf(path), seqId: seq });
          expect(parseMarker(text)).toBeUndefined();
        },
      ),
    );
  });

  it("is not found in an attempt's description, whatever the person wrote", () => {
    fc.assert(
      fc.property(fc.string(), (description) => {
        const marked = markDescription(description, {
          resourceTag: "abcd",
          definitionTag: "efgh",
          instanceTag: "ijkl",
          attempt: 1,
        });
        expect(parseRestoreMarker(marked)).toBeUndefined();
      }),
    );
  });

  it("uses one idempotency key per router, resource and backup", () => {
    const key = restoreIdempotencyKey("r", "abcd", 12);
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(restoreIdempotencyKey("r", "abcd", 12)).toBe(key);
    expect(restoreIdempotencyKey("r", "abcd", 13)).not.toBe(key);
    expect(restoreIdempotencyKey("s", "abcd", 12)).not.toBe(key);
  });
});

describe("the exactly-once lookup with a restore in the list", () => {
  it.each([
    ["this machine reported the failure", { reportedHere: () => true }],
    ["Terraform's state holds the taint", { knowledge: { instances: [], tainted: true } }],
    ["nothing is known (adopts the failure)", {}],
  ])("decides as without the restore when %s", (_why, extra) => {
    const failed = attempt(4, 1, "failed");
    const restore = listed(5, restoreDescription(tagOf(RESOURCE), 4), "completed", false);
    const input = {
      resourceTag: tagOf(RESOURCE),
      definitionTag: tagOf(JOB_KEY),
      instanceTag: tagOf("i-2"),
      reportedHere: () => false,
      force: false,
      ...extra,
    };
    expect(decide({ ...input, jobs: [restore, failed] })).toEqual(decide({ ...input, jobs: [failed] }));
  });
});

describe("the backup a wave restores", () => {
  const dns = { resource: "fleet/edge-a/dns", job_key: "b".repeat(64) };
  const identity = { resource: "fleet/edge-a/identity", job_key: "c".repeat(64) };
  const of = (job: typeof dns, seq: number, status: JobListItem["status"], makeBackup = true) =>
    listed(
      seq,
      markDescription(job.resource, {
        resourceTag: tagOf(job.resource),
        definitionTag: tagOf(job.job_key),
        instanceTag: tagOf("i-1"),
        attempt: 1,
      }),
      status,
      makeBackup,
    );

  it("is the oldest backup of the wave's latest attempts: the configuration before the wave", () => {
    const jobs = [of(identity, 8, "completed"), of(dns, 7, "completed"), of(dns, 3, "failed")];
    // dns's latest attempt is #7 (the failed #3 is an older one); #7 is older than identity's #8.
    expect(backupToRestore(jobs, [dns, identity])).toEqual({ seqId: 7, resource: dns.resource });
  });

  it("tells a wave restored after its latest attempts from one that ran again since", () => {
    const restoreOf = (seq: number, backup: number, status: JobListItem["status"] = "completed") =>
      listed(seq, restoreDescription(tagOf(dns.resource), backup), status, false);
    const wave = [of(dns, 7, "completed")];
    expect(restoredAfterWave([restoreOf(8, 7), ...wave], [dns])?.seq_id).toBe(8);
    // A restore of an older attempt's backup, then the change ran again: the router holds it.
    expect(restoredAfterWave([of(dns, 9, "completed"), restoreOf(8, 7)], [dns])).toBeUndefined();
    // A restore that failed changed nothing.
    expect(restoredAfterWave([restoreOf(8, 7, "failed"), ...wave], [dns])).toBeUndefined();
  });

  it("skips jobs without a backup, jobs still running, and jobs of other changes", () => {
    const jobs = [of(identity, 9, "running"), of(dns, 8, "completed", false), attempt(2, 1, "completed")];
    expect(backupToRestore(jobs, [dns, identity])).toBeUndefined();
  });
});

describe("the restore script on a simulated router", () => {
  const setUp = async (router: SimulatedRouter, seq: number) => {
    await router.runSource(
      "/ip address add address=10.1.1.1/24 interface=ether1\n/ip dns set servers=10.0.0.53",
    );
    const before = (await router.runSource("/export")).join("\n");
    return { before, backup: `routerjobs-job-${seq}` };
  };

  it("restores from an export (.rsc, as a device's backup) by reset-configuration after the job, and reboots", async () => {
    // No real wait for the reset's delay (the router's clock scale is 0); the reset itself is held at a gate
    // until the test has looked, so that nothing races it.
    let release = () => {};
    const resetHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    const router = new SimulatedRouter({
      name: "edge",
      delayScale: 0,
      beforeCommand: (call) => (call.verb === "reset-configuration" ? resetHeld : undefined),
    });
    const { before, backup } = await setUp(router, 12);
    await router.runSource(`/export file=${backup}`);
    await router.runSource('/ip address remove [find]\n/system identity set name="half done"');
    const outcome = await router.runScript(restoreScript(12));
    // The script itself only starts the reset in the background, so the job can report before the reset.
    expect(outcome).toMatchObject({ ok: true });
    expect(await router.runSource(":put [/system identity get name]")).toEqual(["half done"]);
    release();
    await router.jobsIdle();
    expect((await router.runSource("/export")).join("\n")).toBe(before);
    expect(router.takeRebootRequest()).toBe(true);
  });

  it("prefers a binary backup beside the export (a device with binary_backup), loaded after the job", async () => {
    // GIVEN both files of job 15's backup, as the device back end writes them, and a user with a password
    const router = new SimulatedRouter({ name: "edge", delayScale: 0 });
    await router.runSource("/user add name=ops group=read password=before-Pass-1");
    const { before, backup } = await setUp(router, 15);
    await router.runSource(`/export file=${backup}`);
    router.saveBackup(backup);
    const password = () => router.table("user").items.find((u) => u.values.name === "ops")?.values.password;
    // AND a change since, which also set the user's password (no export can bring that back)
    await router.runSource("/ip address remove [find]\n/user set ops password=after-Pass-2");
    // WHEN the restore script runs
    const outcome = await router.runScript(restoreScript(15));
    // THEN it only starts the load in the background, so that the job reports before the reboot
    expect(outcome).toMatchObject({ ok: true });
    expect(password()).toBe("after-Pass-2");
    // AND once the load ran: the configuration and the password are back, from the .backup, not the export
    await router.jobsIdle();
    expect((await router.runSource("/export")).join("\n")).toBe(before);
    expect(password()).toBe("before-Pass-1");
    expect(router.logEntries.map((entry) => entry.message)).toContain(
      `configuration restored from ${backup}.backup`,
    );
    expect(router.logEntries.map((entry) => entry.message)).not.toContain("configuration reset");
    expect(router.takeRebootRequest()).toBe(true);
  });

  it("restores from a binary backup alone (.backup, a simulated router's) by backup load in the job, and reboots", async () => {
    const router = new SimulatedRouter({ name: "edge" });
    const { before, backup } = await setUp(router, 13);
    router.saveBackup(backup);
    await router.runSource("/ip dns set servers=9.9.9.9");
    expect(await router.runScript(restoreScript(13))).toMatchObject({ ok: true });
    expect((await router.runSource("/export")).join("\n")).toBe(before);
    expect(router.takeRebootRequest()).toBe(true);
  });

  it("fails without touching the router when neither backup file is there", async () => {
    const router = new SimulatedRouter({ name: "edge" });
    await router.runSource("/ip dns set servers=9.9.9.9");
    const outcome = await router.runScript(restoreScript(14));
    expect(outcome).toMatchObject({
      ok: false,
      error: expect.stringContaining("no backup routerjobs-job-14 on the router"),
    });
    expect((await router.runSource("/export")).join("\n")).toContain("servers=9.9.9.9");
    expect(router.takeRebootRequest()).toBe(false);
  });
});

describe("asking for a rollback", () => {
  const job = (extra: object = {}) => {
    const definition = {
      phase: "create" as const,
      router_id: ROUTER_A,
      description: "add the guest vlan",
      script: "/ip dns print",
      make_backup: true,
      express_execute: true,
      needs_acknowledgement: true,
    };
    return {
      version: 1,
      resource: RESOURCE,
      wait_for: "poll",
      timeout_ms: 1000,
      ...definition,
      job_key: jobKey(definition),
      ...extra,
    };
  };

  it("reads rollback from the job JSON and refuses an unknown mode naming the field", () => {
    expect(parseApplyJob(JSON.stringify(job({ rollback: "on-failure" }))).rollback).toBe("on-failure");
    expect(parseApplyJob(JSON.stringify(job())).rollback).toBeUndefined();
    expect(() => parseApplyJob(JSON.stringify(job({ rollback: "always" })))).toThrow(/rollback/);
  });

  it("takes --rollback-on-failure on apply's lean command line, and the flag wins over the job", () => {
    expect(parseApplyArgs(["--rollback-on-failure"])).toEqual({ rollbackOnFailure: true });
    const parsed = parseApplyJob(JSON.stringify(job()));
    expect(rollbackWanted(parsed, true)).toBe(true);
    expect(rollbackWanted(parsed, undefined)).toBe(false);
    expect(rollbackWanted({ ...parsed, rollback: "on-failure" }, undefined)).toBe(true);
  });

  it("refuses a wave check's unknown on_failure naming the field", () => {
    const check = {
      version: 1,
      resource: "fleet/rollout-wave-1",
      wave: { wave: 1, waves: 2 },
      routers: [{ name: "edge-a", router_id: ROUTER_A }],
      soak_ms: 0,
      timeout_ms: 1000,
    };
    expect(parseWaveCheck(JSON.stringify({ ...check, on_failure: "rollback-wave" })).on_failure).toBe(
      "rollback-wave",
    );
    expect(() => parseWaveCheck(JSON.stringify({ ...check, on_failure: "undo" }))).toThrow(/on_failure/);
  });

  it("does not restore through the sites API a job that names no backup of the service, and says why, without a request", async () => {
    const client = new RouterJobsClient({ baseUrl: "https://127.0.0.1:9", token: TOKEN_A, api: "sdx" });
    try {
      const parsed = parseApplyJob(JSON.stringify(job({ rollback: "on-failure" })));
      expect(
        await rollBackFailedJob(parsed, { seq_id: 4, associated_backup: null }, { client, write: () => {} }),
      ).toBe(
        "not rolled back: the sdx API lists no associated_backup for the job, which names the service's backup",
      );
    } finally {
      await client.close();
    }
  });
});
