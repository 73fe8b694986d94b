import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routerFingerprint } from "../../../src/service/portal/fingerprints.js";
import {
  ADMIN_TOKEN,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "../harness.js";
import { hiddenCsrf, PortalClient } from "./portal-client.js";

/**
 * Reads a server-sent event stream until `until` holds for what arrived, or the stream ends. `next()` by hand:
 * leaving a `for await` would destroy the stream.
 */
async function readEvents(body: AsyncIterator<Buffer>, until: (text: string) => boolean): Promise<string> {
  let text = "";
  for (;;) {
    const chunk = await body.next();
    if (chunk.done) return text;
    text += chunk.value.toString();
    if (until(text)) return text;
  }
}

describe("portal live updates (server-sent events over the session)", () => {
  let svc: TestService;
  let browser: PortalClient;
  let dispatcher: Agent;
  const stream = (path: string) =>
    request(`${svc.url}${path}`, {
      dispatcher,
      headers: { cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
    });

  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
    browser = new PortalClient(svc);
    dispatcher = new Agent({ connect: { ca: svc.service.ca as string } });
    await browser.signIn(TOKEN_A);
  });
  afterAll(async () => {
    await browser?.close();
    await dispatcher?.close();
    await svc?.close();
  });

  it("announces a change when a job is submitted, and ends the stream at sign-out", async () => {
    const page = await browser.get(`/portal/routers/${ROUTER_A}`);
    const eventsUrl = /data-events="([^"]+)"/.exec(page.text)?.[1]?.replaceAll("&amp;", "&") as string;
    expect(eventsUrl).toMatch(/^\/portal\/routers\/.+\/events\?since=/);
    // The page reads its fingerprint with the router; the stream polls the router's own: the same value, so an
    // unchanged page is told of nothing.
    expect(new URL(eventsUrl, svc.url).searchParams.get("since")).toBe(
      await routerFingerprint(svc.service.app.db, ROUTER_A),
    );
    const events = await stream(eventsUrl);
    expect(events.statusCode).toBe(200);
    expect(events.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(events.headers["content-security-policy"]).toBeDefined();
    const body = events.body[Symbol.asyncIterator]();
    await readEvents(body, (text) => text.includes("retry:"));
    // An open stream is no call in flight: the job lists do not wait for it (interactive-first.ts).
    expect(svc.service.app.interactiveFirst.inFlight).toBe(0);
    await svc.submit(ROUTER_A, { description: "watched", script: "/log info x" });
    expect(await readEvents(body, (text) => text.includes("event: change"))).toContain("event: change");
    const signedOut = await browser.post("/portal/sign-out", { csrf: hiddenCsrf(page.text) });
    expect(signedOut.status).toBe(303);
    // The stream ends by itself (the loop finishes) with a last "end" event.
    expect(await readEvents(body, () => false)).toContain("event: end");
    const again = await stream(eventsUrl);
    expect(again.statusCode).toBe(401);
    await again.body.dump();
  });

  it("opens no stream on another team's router or job", async () => {
    await browser.signIn(TOKEN_A);
    const answer = await stream(`/portal/routers/${ROUTER_B}/events`);
    expect(answer.statusCode).toBe(404);
    await answer.body.dump();
    const theirs = await svc.submit(ROUTER_B, { description: "theirs", script: "/log info x" }, TOKEN_B);
    expect(theirs.status).toBe(202);
    const [theirJob] = await svc.jobs(ROUTER_B, TOKEN_B);
    for (const path of [`/portal/jobs/${theirJob.id}/events`, "/portal/jobs/not-a-job/events"]) {
      const refused = await stream(path);
      expect(refused.statusCode).toBe(404);
      await refused.body.dump();
    }
  });

  it("announces on the routers list a job on any of the team's routers, and on a job page its own change", async () => {
    await browser.signIn(TOKEN_A);
    const list = await browser.get("/portal");
    const listEvents = /data-events="([^"]+)"/.exec(list.text)?.[1] as string;
    expect(listEvents).toMatch(/^\/portal\/events\?since=/);
    const listStream = await stream(listEvents);
    const listBody = listStream.body[Symbol.asyncIterator]();
    await readEvents(listBody, (text) => text.includes("retry:"));
    await svc.submit(ROUTER_A2, { description: "on the second router", script: "/log info x" });
    expect(await readEvents(listBody, (text) => text.includes("event: change"))).toContain("event: change");
    listStream.body.destroy();

    const [job] = await svc.jobs(ROUTER_A2);
    const jobPage = await browser.get(`/portal/jobs/${job.id}`);
    const jobEvents = /data-events="([^"]+)"/.exec(jobPage.text)?.[1] as string;
    expect(jobEvents).toMatch(new RegExp(`^/portal/jobs/${job.id}/events\\?since=`));
    const jobStream = await stream(jobEvents);
    const jobBody = jobStream.body[Symbol.asyncIterator]();
    await readEvents(jobBody, (text) => text.includes("retry:"));
    // The job is deleted while pending: its page's stream says so.
    const deleted = await svc.call("DELETE", `/admin/jobs/${job.id}`, { token: ADMIN_TOKEN });
    expect(deleted.status, JSON.stringify(deleted.body)).toBeLessThan(300);
    expect(await readEvents(jobBody, (text) => text.includes("event: change"))).toContain("event: change");
    jobStream.body.destroy();
  });
});
