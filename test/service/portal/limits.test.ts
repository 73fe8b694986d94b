import type { FastifyInstance } from "fastify";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import type { ServiceConfigInput } from "../../../src/service/config.js";
import {
  ADMIN_TOKEN,
  eventually,
  ROUTER_A,
  ROUTER_B,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
  TOKEN_A2,
  TOKEN_B,
} from "../harness.js";
import { hiddenCsrf, PortalClient, setCookies } from "./portal-client.js";

/** Team A's token with another secret: a known token id, the wrong secret. */
const WRONG_SECRET = `${TOKEN_A.slice(0, TOKEN_A.lastIndexOf(":") + 1)}${"x".repeat(62)}`;
/** A well-formed token of team A whose id is `n`'s own and unknown to the service. */
const unknownToken = (n: number) =>
  `ee000000-0000-4000-8000-${String(n).padStart(12, "0")}:${TEAM_A}:${"y".repeat(62)}`;

/** A browser at `address` (not this test's loopback) posting the sign-in form, through `inject`. */
async function signInFrom(app: FastifyInstance, address: string, token: string) {
  const form = await app.inject({ method: "GET", url: "/portal", remoteAddress: address });
  const [cookie = ""] = setCookies(form.headers["set-cookie"] as string | string[] | undefined);
  return app.inject({
    method: "POST",
    url: "/portal/sign-in",
    remoteAddress: address,
    headers: { cookie: cookie.split(";")[0] as string, "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ csrf: hiddenCsrf(form.body), token }).toString(),
  });
}

/** The session cookie a sign-in answer set, as a Cookie header. */
const sessionCookie = (answer: { headers: Record<string, unknown> }) =>
  setCookies(answer.headers["set-cookie"] as string | string[] | undefined)
    .find((line) => line.startsWith("__Host-rj_session="))
    ?.split(";")[0];

describe("portal limits", () => {
  const started: { close(): Promise<void> }[] = [];
  const service = async (config: Partial<ServiceConfigInput>): Promise<TestService> => {
    const svc = await startTestService({ tickMs: 60_000, ...config });
    started.push(svc);
    return svc;
  };
  const browserOf = (svc: TestService) => {
    const browser = new PortalClient(svc);
    started.unshift(browser);
    return browser;
  };
  afterEach(async () => {
    for (const each of started.splice(0)) await each.close();
  });

  it("limits sign-in attempts per token id without spending the key's API budget", async () => {
    const svc = await service({
      rateLimit: { count: 2, windowMs: 60_000 },
      portalSignInPerToken: { count: 3, windowMs: 60_000 },
    });
    const browser = browserOf(svc);
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect((await browser.signIn(WRONG_SECRET)).status).toBe(401);
    }
    const refused = await browser.signIn(WRONG_SECRET);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(refused.headers["content-type"]).toMatch(/^text\/html/);
    expect(refused.text).toContain("At most 3 sign-in attempts per 1m per token");
    expect(refused.text).toContain(`try again in ${refused.headers["retry-after"]} s`);
    // The id is held at the sign-in form whatever the secret: a 303 for the right one would be an oracle.
    expect((await browser.signIn(TOKEN_A)).status).toBe(429);
    // The owner's API calls were not counted: the whole budget of 2 is there.
    const first = await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`);
    expect(first.status).toBe(200);
    expect(first.headers["x-ratelimit-remaining"]).toBe("1");
    expect((await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`)).status).toBe(200);
    // Another token id's sign-in limit is its own.
    expect((await browser.signIn(TOKEN_B)).status).toBe(303);
  });

  it("limits sign-in attempts per client address, whatever token (or none) they name", async () => {
    const svc = await service({ portalSignInPerAddress: { count: 3, windowMs: 60_000 } });
    const { app } = svc.service;
    for (const token of [unknownToken(1), unknownToken(2), "not-a-token"]) {
      expect((await signInFrom(app, "192.0.2.7", token)).statusCode).toBe(401);
    }
    const refused = await signInFrom(app, "192.0.2.7", TOKEN_A);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(refused.body).toContain("At most 3 sign-in attempts per 1m per client address");
    expect(refused.headers["set-cookie"]).not.toEqual(expect.stringContaining("__Host-rj_session="));
    // Another address signs in with the same token.
    expect((await signInFrom(app, "192.0.2.8", TOKEN_A)).statusCode).toBe(303);
  });

  it("opens the all-teams view only where the admin API answers (loopback, unless adminRemote)", async () => {
    const svc = await service({});
    const { app } = svc.service;
    const remote = "203.0.113.7";
    const refused = await signInFrom(app, remote, ADMIN_TOKEN);
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain("That token was not accepted");
    expect(sessionCookie(refused)).toBeUndefined();
    // A session opened on loopback, its cookie carried to another address, opens nothing there.
    const local = await signInFrom(app, "127.0.0.1", ADMIN_TOKEN);
    expect(local.statusCode).toBe(303);
    const cookie = sessionCookie(local) as string;
    const get = (url: string, remoteAddress: string) =>
      app.inject({ method: "GET", url, remoteAddress, headers: { cookie } });
    expect((await get(`/portal/routers/${ROUTER_B}`, "127.0.0.1")).statusCode).toBe(200);
    expect((await get(`/portal/routers/${ROUTER_B}`, remote)).statusCode).toBe(303);
    const list = await get("/portal", remote);
    expect(list.body).toContain('action="/portal/sign-in"');
    expect(list.body).not.toContain("edge-b");
    expect((await get("/portal/events", remote)).statusCode).toBe(401);
    // The admin API refuses that address too: one rule for both.
    const api = await app.inject({
      method: "GET",
      url: "/admin/status",
      remoteAddress: remote,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(api.statusCode).toBe(404);
  });

  it("with adminRemote, opens the all-teams view from other addresses as the admin API does", async () => {
    const svc = await service({ adminRemote: true });
    const signedIn = await signInFrom(svc.service.app, "203.0.113.7", ADMIN_TOKEN);
    expect(signedIn.statusCode).toBe(303);
    const list = await svc.service.app.inject({
      method: "GET",
      url: "/portal",
      remoteAddress: "203.0.113.7",
      headers: { cookie: sessionCookie(signedIn) as string },
    });
    expect(list.body).toContain("admin: all teams");
    expect(list.body).toContain("edge-b");
  });

  it("limits the pages of one session and of one team, with a 429 page naming the limit", async () => {
    const svc = await service({
      rateLimit: { count: 5, windowMs: 60_000 },
      portalPagesPerSession: { count: 3, windowMs: 60_000 },
      portalPagesPerTeam: { count: 5, windowMs: 60_000 },
    });
    const first = browserOf(svc);
    await first.signIn(TOKEN_A);
    let signedInPage = "";
    for (const path of ["/portal", `/portal/routers/${ROUTER_A}`, "/portal"]) {
      const page = await first.get(path);
      expect(page.status).toBe(200);
      signedInPage = page.text;
    }
    const refused = await first.get(`/portal/routers/${ROUTER_A}`);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(refused.headers["content-type"]).toMatch(/^text\/html/);
    expect(refused.text).toContain("At most 3 pages per 1m per session");
    expect(refused.text).not.toContain("edge-a");
    // Another session of the team has its own 3, within the team's 5 (3 of them spent above).
    const second = browserOf(svc);
    await second.signIn(TOKEN_A2);
    expect((await second.get("/portal")).status).toBe(200);
    expect((await second.get("/portal")).status).toBe(200);
    const teamFull = await second.get("/portal");
    expect(teamFull.status).toBe(429);
    expect(teamFull.text).toContain("At most 5 pages per 1m per team");
    // Another team's pages and the team's own API budget are untouched.
    const other = browserOf(svc);
    await other.signIn(TOKEN_B);
    expect((await other.get("/portal")).status).toBe(200);
    const api = await svc.call("GET", `/api/routers/${ROUTER_A}/jobs`);
    expect(api.status).toBe(200);
    expect(api.headers["x-ratelimit-remaining"]).toBe("4");
    // Signing out is never refused for the pages read: the session's sign-out form still works.
    const signedOut = await first.post("/portal/sign-out", { csrf: hiddenCsrf(signedInPage) });
    expect(signedOut.status).toBe(303);
    expect(first.cookies.has("__Host-rj_session")).toBe(false);
  });

  it("caps the event streams open per session and per team; the next one is refused with 429", async () => {
    const svc = await service({ portalStreamsPerSession: 2, portalStreamsPerTeam: 3 });
    const dispatcher = new Agent({ connect: { ca: svc.service.ca as string } });
    started.push(dispatcher);
    const stream = (browser: PortalClient) =>
      request(`${svc.url}/portal/events`, {
        dispatcher,
        headers: { cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join("; ") },
      });
    const first = browserOf(svc);
    await first.signIn(TOKEN_A);
    const open = [await stream(first), await stream(first)];
    for (const each of open) expect(each.statusCode).toBe(200);
    const third = await stream(first);
    expect(third.statusCode).toBe(429);
    expect(third.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(await third.body.text()).toContain("At most 2 open event streams per session");
    // The team's third stream from another session, then its cap.
    const second = browserOf(svc);
    await second.signIn(TOKEN_A2);
    const teamsLast = await stream(second);
    expect(teamsLast.statusCode).toBe(200);
    const overTeam = await stream(second);
    expect(overTeam.statusCode).toBe(429);
    expect(await overTeam.body.text()).toContain("At most 3 open event streams per team");
    // Another team streams.
    const other = browserOf(svc);
    await other.signIn(TOKEN_B);
    const theirs = await stream(other);
    expect(theirs.statusCode).toBe(200);
    // A stream closed gives its place back: the session opens one again.
    open[0]?.body.destroy();
    const again = await eventually(async () => {
      const answer = await stream(first);
      if (answer.statusCode === 200) return answer;
      await answer.body.dump();
      return undefined;
    });
    for (const each of [again, open[1], teamsLast, theirs]) each?.body.destroy();
  });
});
