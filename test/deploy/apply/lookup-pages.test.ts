/**
 * apply's exactly-once lookup through the sites API at the stand-in of the public service, whose job list is
 * paged (a Laravel resource collection, 50 jobs a page) and filters nothing: on a router of 1,000 jobs of
 * history the list is read newest first only down to the page that holds this change's latest attempt; an
 * attempt deep in the history is still found; and only the whole list proves there is none. The one-job
 * look (`findJob`) stops at the page that holds its job in the same way.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/index.js";
import type { ApplyJob } from "../../../src/contract/apply-job.js";
import { markDescription, tagOf } from "../../../src/contract/attempt-marker.js";
import { applyJob } from "../../../src/deploy/apply/apply.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { findJob } from "../../../src/deploy/job-list/poll.js";
import { makeClient } from "../../client/helpers/make-client.js";
import { declareJob } from "../../helpers/declared-job.js";
import { scratchDir } from "../../helpers/scratch.js";
import { type StandIn, startStandIn } from "../../standin/standin.js";

const TOKEN = "alto_sk_lookupPagesS3cr3tQ9zR2mXw7Lk";
const PAGE = 50;
const HISTORY = 1_000;
/** 1,000 jobs of history and the attempt: 21 pages of 50. */
const PAGES = Math.ceil((HISTORY + 1) / PAGE);
const INSTANCE = "i-lookup";

describe("apply's lookup at the stand-in's paged sites API, 1,000 jobs of history", () => {
  const sites = { top: randomUUID(), middle: randomUUID(), bottom: randomUUID(), absent: randomUUID() };
  let standIn: StandIn;
  let client: RouterJobsClient;
  beforeAll(async () => {
    standIn = await startStandIn({
      teams: [{ id: randomUUID(), tokens: [TOKEN], sites: Object.values(sites) }],
      // No tick: the history's jobs are never taken by the scheduler (they are completed at submission).
      tickMs: 3_600_000,
      rateLimitMax: 1_000_000,
      jobPageSize: PAGE,
    });
    client = makeClient(standIn.url, {
      token: TOKEN,
      api: "sdx",
      rateLimit: { count: 1_000_000, windowMs: 1000 },
      deadlineMs: 60_000,
    });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await standIn?.close();
  });

  const resource = (site: string) => `office/${site}/identity`;
  const declared = (site: string): ApplyJob =>
    declareJob(site, resource(site), { makeBackup: false, timeoutMs: 30_000 });

  /** Jobs of other resources, completed at submission (no acknowledgement), `count` of them. */
  async function history(site: string, count: number): Promise<void> {
    for (let done = 0; done < count; done += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - done) }, (_, index) =>
          client.submitJob(site, {
            description: `Other change ${done + index} [rj:zzzz-ef23-gh45-1]`,
            script: ":put 1",
            needs_acknowledgement: false,
            express_execute: false,
          }),
        ),
      );
    }
  }

  /** This change's first attempt, made by this instance and completed (as a run killed after it would leave it). */
  async function attempt(site: string): Promise<string> {
    const job = declared(site);
    const marker = {
      resourceTag: tagOf(job.resource),
      definitionTag: tagOf(job.job_key),
      instanceTag: tagOf(INSTANCE),
      attempt: 1,
    };
    const { ack } = await client.submitJob(site, {
      description: markDescription(job.description, marker),
      script: job.script,
      needs_acknowledgement: false,
      express_execute: false,
    });
    return ack.request_id;
  }

  /** apply run again on `site`: what it decided, and the list pages it read before it submitted anything. */
  async function rerun(site: string) {
    const before = standIn.requests().length;
    const lines: string[] = [];
    const result = await applyJob(declared(site), {
      client,
      journal: new Journal(scratchDir("rj-lookup-pages-")),
      instanceId: INSTANCE,
      write: (line) => lines.push(line),
    });
    const requests = standIn.requests().slice(before);
    const firstPost = requests.findIndex((request) => request.method === "POST");
    const lookup = (firstPost === -1 ? requests : requests.slice(0, firstPost)).filter(
      (request) => request.method === "GET" && request.path.startsWith(`/sites/${site}/jobs`),
    );
    return { result, lines, lookup: lookup.map((request) => request.path), posts: firstPost === -1 ? 0 : 1 };
  }

  it("finds the attempt on the first page with one request, not the 21 pages of the whole list", async () => {
    // GIVEN 1,000 jobs of history, then this change's attempt: the newest job
    await history(sites.top, HISTORY);
    await attempt(sites.top);
    // WHEN apply runs again THEN it adopts the attempt after reading one page
    const { result, lookup, posts } = await rerun(sites.top);
    expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
    expect(lookup).toEqual([`/sites/${sites.top}/jobs`]);
    expect(posts).toBe(0);
  }, 60_000);

  it("finds an attempt half-way down the history, reading the pages down to it and no further", async () => {
    // GIVEN 500 jobs, the attempt, 500 more: the attempt is job 501 from the top, on page 11
    await history(sites.middle, HISTORY / 2);
    await attempt(sites.middle);
    await history(sites.middle, HISTORY / 2);
    const { result, lookup, posts } = await rerun(sites.middle);
    expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
    expect(lookup).toHaveLength(11);
    expect(lookup.at(-1)).toBe(`/sites/${sites.middle}/jobs?page=11`);
    expect(posts).toBe(0);
  }, 60_000);

  it("finds the attempt at the very bottom of the history, on the last page", async () => {
    await attempt(sites.bottom);
    await history(sites.bottom, HISTORY);
    const { result, lookup, posts } = await rerun(sites.bottom);
    expect(result).toMatchObject({ outcome: "completed", alreadyApplied: true });
    expect(lookup).toHaveLength(PAGES);
    expect(posts).toBe(0);
  }, 60_000);

  it("submits only after the whole list showed no attempt: absence costs every page, once", async () => {
    // GIVEN 1,000 jobs of history and no attempt at this change
    await history(sites.absent, HISTORY);
    const { result, lines, lookup, posts } = await rerun(sites.absent);
    // THEN every page was read (each once) before the one submission, and the change ran
    expect(lookup).toHaveLength(Math.ceil(HISTORY / PAGE));
    expect(new Set(lookup).size).toBe(lookup.length);
    expect(posts).toBe(1);
    expect(lines.join("\n")).toContain("no attempt at this change is listed");
    expect(result.outcome).toBe("completed");
  }, 60_000);

  it("findJob reads the list down to the page that holds its job, and the whole list for one it lacks", async () => {
    // The `middle` site: 1,001 jobs, the attempt on page 11.
    const [target] = standIn.jobs(sites.middle).filter((job) => !job.description.startsWith("Other change"));
    expect(target).toBeDefined();
    const count = async (match: (job: { id: string }) => boolean) => {
      const before = standIn.requests().length;
      const found = await findJob(client, sites.middle, match, Date.now() + 30_000);
      return { found, requests: standIn.requests().length - before };
    };
    const hit = await count((job) => job.id === target?.id);
    expect([hit.found?.id, hit.requests]).toEqual([target?.id, 11]);
    const miss = await count((job) => job.id === randomUUID());
    expect([miss.found, miss.requests]).toEqual([undefined, PAGES]);
  }, 60_000);
});
