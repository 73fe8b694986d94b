/**
 * The job list read through pages, as the public service's "standardized pagination" may answer it (its shape
 * is not documented): the stand-in's Laravel resource collection of 1,000 jobs, and scripted pages of the other
 * shapes (a cursor, a paginator's next_page_url) and of the broken ones (a loop, a link to another host).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadResponseError, type RouterJobsClient } from "../../src/client/index.js";
import { type StandIn as PublicStandIn, startStandIn as startPublicStandIn } from "../standin/standin.js";
import { makeClient } from "./helpers/make-client.js";
import { ROUTER_ID, type StandIn, startStandIn } from "./helpers/stand-in-service.js";

const TOKEN = "alto_sk_pagedListS3cr3tQ9zR2mXw7LkP0s";

describe("a paged job list at the stand-in (a Laravel resource collection, 15 a page)", () => {
  const siteId = randomUUID();
  let standIn: PublicStandIn;
  let client: RouterJobsClient;
  beforeAll(async () => {
    standIn = await startPublicStandIn({
      teams: [{ id: randomUUID(), tokens: [TOKEN], sites: [siteId] }],
      tickMs: 3_600_000,
      rateLimitMax: 100_000,
      jobPageSize: 15,
    });
    client = makeClient(standIn.url, {
      token: TOKEN,
      api: "sdx",
      rateLimit: { count: 100_000, windowMs: 1000 },
    });
  });
  afterAll(async () => {
    await client?.close();
    await standIn?.close();
  });

  it("reads all 1,000 jobs by following links.next, each job once and each page once", async () => {
    // GIVEN 1,000 jobs on one site
    const ids: string[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const acks = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          client.submitJob(siteId, { description: `job ${batch * 50 + index}`, script: ":put 1" }),
        ),
      );
      ids.push(...acks.map(({ ack }) => ack.request_id));
    }
    const before = standIn.requests().length;
    // WHEN the client lists them
    const jobs = await client.listJobs(siteId);
    // THEN every job once, in the service's order, in ceil(1000 / 15) = 67 requests
    expect(jobs).toHaveLength(1000);
    expect(new Set(jobs.map((job) => job.id))).toEqual(new Set(ids));
    const pages = standIn.requests().slice(before);
    expect(pages).toHaveLength(67);
    expect(pages.map((request) => request.path)).toEqual([
      `/sites/${siteId}/jobs`,
      ...Array.from({ length: 66 }, (_, index) => `/sites/${siteId}/jobs?page=${index + 2}`),
    ]);
  });
});

describe("paged job lists of other shapes, and broken ones", () => {
  let front: StandIn;
  let client: RouterJobsClient;
  beforeAll(async () => {
    front = await startStandIn();
    client = makeClient(front.url);
  });
  afterAll(async () => {
    await client?.close();
    await front?.close();
  });
  const item = (seq: number) => ({
    id: randomUUID(),
    idempotency_key: randomUUID(),
    description: `job ${seq}`,
    express_execute: false,
    make_backup: false,
    needs_acknowledgement: true,
    seq_id: seq,
    status: "completed",
  });
  const path = `/api/routers/${ROUTER_ID}/jobs`;

  it("follows a cursor (meta.next_cursor) and a paginator's next_page_url until none is offered", async () => {
    const before = front.requests.length;
    front.script(
      { status: 200, body: { data: [item(3)], meta: { next_cursor: "c2" } } },
      {
        status: 200,
        body: { data: [item(2)], next_page_url: `${front.url}${path}?page=3`, next_cursor: null },
      },
      { status: 200, body: { data: [item(1)], next_page_url: null, links: { next: null } } },
    );
    const jobs = await client.listJobs(ROUTER_ID);
    expect(jobs.map((job) => job.seq_id)).toEqual([3, 2, 1]);
    expect(front.requests.slice(before).map((request) => request.path)).toEqual([
      path,
      `${path}?cursor=c2`,
      `${path}?page=3`,
    ]);
  });

  it("stops at a page that points back at one already read, saying so, instead of looping", async () => {
    front.script(
      { status: 200, body: { data: [item(2)], links: { next: `${front.url}${path}?page=2` } } },
      { status: 200, body: { data: [item(1)], links: { next: `${front.url}${path}?page=2` } } },
    );
    const error = await client.listJobs(ROUTER_ID).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadResponseError);
    expect((error as Error).message).toMatch(/page 2 points back at a page already read/);
  });

  it("does not follow a next link to another host (the token would go there)", async () => {
    const before = front.requests.length;
    front.script({
      status: 200,
      body: { data: [item(1)], links: { next: "https://elsewhere.example/jobs?page=2" } },
    });
    const error = await client.listJobs(ROUTER_ID).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadResponseError);
    expect((error as Error).message).toMatch(
      /next page is not on this service \(https:\/\/elsewhere.example\/jobs\)/,
    );
    expect(front.requests.length - before).toBe(1);
  });

  it("ends at an empty page, whatever it offers", async () => {
    front.script(
      { status: 200, body: { data: [item(1)], meta: { next_cursor: "a" } } },
      { status: 200, body: { data: [], meta: { next_cursor: "b" } } },
    );
    expect((await client.listJobs(ROUTER_ID)).map((job) => job.seq_id)).toEqual([1]);
  });
});
