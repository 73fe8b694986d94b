import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mintSignInCode } from "../../../src/service/portal/index.js";
import { SESSION_LIFETIME_MS } from "../../../src/service/portal/sessions.js";
import {
  ADMIN_TOKEN,
  ROUTER_A,
  ROUTER_B,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
} from "../harness.js";
import { hiddenCsrf, PortalClient, setCookies } from "./portal-client.js";

/** Team A's token with another secret: a known token id, the wrong secret. */
const WRONG_SECRET = `${TOKEN_A.slice(0, TOKEN_A.lastIndexOf(":") + 1)}${"x".repeat(62)}`;
const UNKNOWN_TOKEN = `ee000000-0000-4000-8000-00000000000e:${TEAM_A}:${"y".repeat(62)}`;
/** The page without its per-response CSRF value, to compare two answers. */
const withoutCsrf = (text: string) => text.replace(/name="csrf" value="[^"]+"/, "");

describe("portal sessions and sign-in (HTTP)", () => {
  let svc: TestService;
  const clients: PortalClient[] = [];
  const client = () => {
    const made = new PortalClient(svc);
    clients.push(made);
    return made;
  };
  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
  });
  afterAll(async () => {
    for (const made of clients) await made.close();
    await svc?.close();
  });

  it("serves the sign-in form with its CSRF cookie and the security headers", async () => {
    const page = await client().get("/portal");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.text).toContain('<form method="post" action="/portal/sign-in"');
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    const [cookie] = setCookies(page.headers["set-cookie"]);
    expect(cookie).toMatch(/^__Host-rj_signin=.+; Path=\/; .*HttpOnly; Secure; SameSite=Strict/);
  });

  it("signs in with the token in the body and stores only a hash of the session id", async () => {
    const browser = client();
    const answer = await browser.signIn(TOKEN_A);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe("/portal");
    const session = setCookies(answer.headers["set-cookie"]).find((line) =>
      line.startsWith("__Host-rj_session="),
    );
    expect(session).toMatch(/Max-Age=28800; HttpOnly; Secure; SameSite=Strict/);
    const id = browser.cookies.get("__Host-rj_session") as string;
    const { rows } = await svc.service.app.db.query<{ id_hash: string }>(
      "SELECT id_hash FROM portal_sessions",
    );
    const hashes = rows.map((row) => row.id_hash);
    expect(hashes).toContain(createHash("sha256").update(id).digest("hex"));
    expect(hashes).not.toContain(id);
    const routers = await browser.get("/portal");
    expect(routers.text).toContain("edge-a");
    expect(routers.text).not.toContain("edge-b");
    expect(routers.text).not.toContain(TOKEN_A.split(":")[2]);
  });

  it("answers a wrong, an unknown and a malformed token alike, and never echoes it", async () => {
    const answers = [];
    for (const token of [WRONG_SECRET, UNKNOWN_TOKEN, "not-a-token"]) {
      const browser = client();
      const answer = await browser.signIn(token);
      expect(answer.status).toBe(401);
      expect(answer.text).not.toContain(token);
      expect(browser.cookies.has("__Host-rj_session")).toBe(false);
      answers.push(withoutCsrf(answer.text));
    }
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toContain("That token was not accepted");
  });

  it("refuses a sign-in whose CSRF value does not match its cookie", async () => {
    const browser = client();
    await browser.signInForm();
    const answer = await browser.post("/portal/sign-in", { csrf: "forged", token: TOKEN_A });
    expect(answer.status).toBe(403);
    expect(browser.cookies.has("__Host-rj_session")).toBe(false);
    const bare = await client().post("/portal/sign-in", { csrf: "x", token: TOKEN_A });
    expect(bare.status).toBe(403);
  });

  it("shows another team's router as the same not-found page as a router that does not exist", async () => {
    const browser = client();
    await browser.signIn(TOKEN_A);
    const other = await browser.get(`/portal/routers/${ROUTER_B}`);
    const missing = await browser.get("/portal/routers/dddddddd-0000-4000-8000-000000000000");
    const garbage = await browser.get("/portal/routers/not-a-uuid");
    expect(other.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(garbage.status).toBe(404);
    expect(other.text).toBe(missing.text);
    expect(other.text).not.toContain("edge-b");
    const own = await browser.get(`/portal/routers/${ROUTER_A}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain("edge-a");
  });

  it("signs out only with the session's CSRF token, and deletes the session at the server", async () => {
    const browser = client();
    await browser.signIn(TOKEN_A);
    const id = browser.cookies.get("__Host-rj_session") as string;
    const page = await browser.get("/portal");
    const refused = await browser.post("/portal/sign-out", { csrf: "forged" });
    expect(refused.status).toBe(403);
    expect((await browser.get("/portal")).text).toContain("Sign out");
    const done = await browser.post("/portal/sign-out", { csrf: hiddenCsrf(page.text) });
    expect(done.status).toBe(303);
    expect(browser.cookies.has("__Host-rj_session")).toBe(false);
    const hash = createHash("sha256").update(id).digest("hex");
    const { rows } = await svc.service.app.db.query("SELECT 1 FROM portal_sessions WHERE id_hash = $1", [
      hash,
    ]);
    expect(rows).toHaveLength(0);
    // The old cookie, replayed, opens nothing.
    browser.cookies.set("__Host-rj_session", id);
    const replay = await browser.get(`/portal/routers/${ROUTER_A}`);
    expect(replay.status).toBe(303);
  });

  it("ends a session when its token is revoked", async () => {
    const browser = client();
    const token = await svc.call("POST", "/admin/tokens", { token: ADMIN_TOKEN, body: { team_id: TEAM_A } });
    await browser.signIn(token.body.data.token);
    expect((await browser.get(`/portal/routers/${ROUTER_A}`)).status).toBe(200);
    const tokenId = String(token.body.data.token).split(":")[0];
    expect((await svc.call("DELETE", `/admin/tokens/${tokenId}`, { token: ADMIN_TOKEN })).status).toBe(200);
    expect((await browser.get(`/portal/routers/${ROUTER_A}`)).status).toBe(303);
  });

  it("ends a session when its lifetime is over, though its pages were just served", async () => {
    const browser = client();
    await browser.signIn(TOKEN_A);
    expect((await browser.get(`/portal/routers/${ROUTER_A}`)).status).toBe(200);
    // Only the clock's date moves: the service reads it for the session's expiry.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + SESSION_LIFETIME_MS + 1000 });
    try {
      expect((await browser.get(`/portal/routers/${ROUTER_A}`)).status).toBe(303);
    } finally {
      vi.useRealTimers();
    }
  });

  it("signs the admin token in to an all-teams view", async () => {
    const browser = client();
    expect((await browser.signIn(ADMIN_TOKEN)).status).toBe(303);
    const routers = await browser.get("/portal");
    expect(routers.text).toContain("edge-a");
    expect(routers.text).toContain("edge-b");
    expect(routers.text).toContain("admin: all teams");
    expect((await browser.get(`/portal/routers/${ROUTER_B}`)).status).toBe(200);
  });

  it("redeems a one-time sign-in link once, by the POST of its page's button, never by following it", async () => {
    const code = await mintSignInCode(
      svc.service.app.db,
      { teamId: TEAM_A, tokenId: TOKEN_A.split(":")[0] as string },
      new Date(),
    );
    const link = `/portal/sign-in/code/${code}`;
    const codeRows = async () =>
      (
        await svc.service.app.db.query("SELECT 1 FROM portal_sign_in_codes WHERE code_hash = $1", [
          createHash("sha256").update(code).digest("hex"),
        ])
      ).rows.length;
    // Following the link (as an <img> or a redirect from another site would) signs nobody in and uses nothing up.
    const visitor = client();
    const page = await visitor.get(link);
    expect(page.status).toBe(200);
    expect(visitor.cookies.has("__Host-rj_session")).toBe(false);
    expect(page.text).toContain('<form method="post" action="/portal/sign-in/code"');
    expect(await codeRows()).toBe(1);
    // Another site's form posts the code without this browser's sign-in cookie (SameSite=Strict): refused.
    const forged = await client().post("/portal/sign-in/code", { csrf: "forged", code });
    expect(forged.status).toBe(403);
    expect(forged.headers["set-cookie"]).not.toEqual(expect.stringContaining("__Host-rj_session="));
    expect(await codeRows()).toBe(1);
    // The page's button signs in, once.
    const first = client();
    expect((await first.followSignInLink(link)).status).toBe(303);
    expect((await first.get("/portal")).text).toContain("edge-a");
    expect(await codeRows()).toBe(0);
    const second = client();
    const again = await second.followSignInLink(link);
    expect(again.status).toBe(401);
    expect(again.text).toContain("That sign-in link was used already or has expired.");
    expect(second.cookies.has("__Host-rj_session")).toBe(false);
  });

  it("serves its static files under content-hashed names with long cache headers and an ETag", async () => {
    const browser = client();
    await browser.signIn(TOKEN_A);
    const page = await browser.get(`/portal/routers/${ROUTER_A}`);
    const script = /<script src="([^"]+)"/.exec(page.text)?.[1] as string;
    const style = /<link rel="stylesheet" href="([^"]+)"/.exec(page.text)?.[1] as string;
    for (const path of [script, style]) {
      expect(path).toMatch(/^\/portal\/assets\/portal\.[0-9a-f]{16}\.(js|css)$/);
      const asset = await browser.get(path);
      expect(asset.status).toBe(200);
      expect(asset.headers["cache-control"]).toContain("immutable");
      expect(asset.headers["x-content-type-options"]).toBe("nosniff");
      const again = await browser.get(path, { "if-none-match": String(asset.headers.etag) });
      expect(again.status).toBe(304);
    }
    expect((await browser.get("/portal/assets/portal.0000000000000000.js")).status).toBe(404);
  });

  it("leaves the API's answers as they were: /portal pages never answer JSON, the API never HTML", async () => {
    const api = await svc.call("GET", "/api/no-such-thing");
    expect(api.body.status).toBe("error");
    const page = await client().get("/portal/no-such-thing");
    expect(page.status).toBe(404);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toBeDefined();
  });

  it("is not served with portal: false (--no-portal)", async () => {
    const off = await startTestService({ tickMs: 60_000, portal: false });
    try {
      const answer = await off.call("GET", "/portal", { token: null });
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    } finally {
      await off.close();
    }
  });
});
