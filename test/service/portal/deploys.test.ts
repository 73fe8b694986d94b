import { describe, expect, it } from "vitest";
import { markDescription, tagOf } from "../../../src/contract/attempt-marker.js";
import type { Wave } from "../../../src/contract/wave-check.js";
import { DEPLOY_GAP_MS, type DeployJob, groupDeploys } from "../../../src/service/portal/deploys.js";

const T0 = Date.parse("2026-12-01T10:00:00Z");
const MINUTE = 60_000;
let seq = 0;

/** A marked job of `router`, submitted `at` minutes after T0 and ended `took` minutes later (null: open). */
function job(router: string, at: number, took: number | null, wave?: Wave, team = "team-1"): DeployJob {
  seq += 1;
  const marker = {
    resourceTag: tagOf(router),
    definitionTag: tagOf("d"),
    instanceTag: tagOf("i"),
    attempt: 1,
  };
  return {
    id: `job-${seq}`,
    team_id: team,
    team_name: null,
    router_id: `id-${router}`,
    router_name: router,
    seq_id: seq,
    description: markDescription("dns", marker, wave),
    status: took === null ? "running" : "completed",
    created_at: new Date(T0 + at * MINUTE),
    started_at: new Date(T0 + at * MINUTE),
    ended_at: took === null ? null : new Date(T0 + (at + took) * MINUTE),
    error: null,
  };
}

describe("deploys grouped from marked jobs", () => {
  it("starts a new deploy after a pause longer than the gap, and keeps one within it", () => {
    const jobs = [job("a", 0, 1), job("b", 1, 1), job("a", 2 + DEPLOY_GAP_MS / MINUTE + 1, 1)];
    const deploys = groupDeploys(jobs);
    expect(deploys.map((deploy) => deploy.jobs.map((listed) => listed.id))).toEqual([
      [jobs[2]?.id],
      [jobs[0]?.id, jobs[1]?.id],
    ]);
    expect(deploys[1]?.id).toBe(jobs[0]?.id);
  });

  it("keeps a later wave in its deploy across a soak longer than the gap; a new wave 1 starts another", () => {
    const jobs = [
      job("canary", 0, 1, { wave: 1, waves: 2 }),
      job("b", 30, 1, { wave: 2, waves: 2 }),
      job("c", 30, 2, { wave: 2, waves: 2 }),
      job("canary", 60, 1, { wave: 1, waves: 2 }),
    ];
    const [newer, older] = groupDeploys(jobs);
    expect(older?.jobs).toHaveLength(3);
    expect(older?.lanes.map((lane) => [lane.wave, lane.routers.map((router) => router.name)])).toEqual([
      [{ wave: 1, waves: 2 }, ["canary"]],
      [{ wave: 2, waves: 2 }, ["b", "c"]],
    ]);
    expect(older?.end).toEqual(new Date(T0 + 32 * MINUTE));
    expect(newer?.jobs.map((listed) => listed.router_name)).toEqual(["canary"]);
  });

  it("starts the next deploy when a declared change comes again within the gap (a run after a fix)", () => {
    const jobs = [
      job("canary", 0, 1, { wave: 1, waves: 2 }),
      job("canary", 3, 1, { wave: 1, waves: 2 }),
      job("b", 5, 1, { wave: 2, waves: 2 }),
      job("b", 8, 1, { wave: 2, waves: 2 }),
    ];
    const deploys = groupDeploys(jobs).reverse();
    expect(deploys.map((deploy) => deploy.jobs.map((listed) => listed.router_name))).toEqual([
      ["canary"],
      ["canary", "b"],
      ["b"],
    ]);
  });

  it("holds a deploy open while a job runs, and shows it running (no end)", () => {
    const jobs = [job("a", 0, null), job("b", 20, 1)];
    const [deploy] = groupDeploys(jobs);
    expect(deploy?.jobs).toHaveLength(2);
    expect(deploy?.end).toBeNull();
  });

  it("keeps each team's deploys apart, and counts failures", () => {
    const failed = { ...job("a", 0, 1), status: "failed", error: "bad" };
    const jobs = [failed, job("x", 0, 1, undefined, "team-2"), job("b", 1, 1)];
    const deploys = groupDeploys(jobs);
    expect(deploys).toHaveLength(2);
    const first = deploys.find((deploy) => deploy.teamId === "team-1");
    expect(first?.failed).toBe(1);
    expect(first?.routers).toBe(2);
    expect(first?.lanes.map((lane) => lane.wave)).toEqual([undefined]);
  });
});
