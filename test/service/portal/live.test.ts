import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTER_A, ROUTER_B, startTestService, type TestService, TOKEN_A } from "../harness.js";
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
    const events = await stream(eventsUrl);
    expect(events.statusCode).toBe(200);
    expect(events.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(events.headers["content-security-policy"]).toBeDefined();
    const body = events.body[Symbol.asyncIterator]();
    await readEvents(body, (text) => text.includes("retry:"));
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

  it("opens no stream on another team's router", async () => {
    await browser.signIn(TOKEN_A);
    const answer = await stream(`/portal/routers/${ROUTER_B}/events`);
    expect(answer.statusCode).toBe(404);
    await answer.body.dump();
  });
});
