import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTER_A, ROUTER_B, startTestService, type TestService, TOKEN_A } from "../harness.js";
import { chromiumPath } from "./chromium.js";

const executablePath = chromiumPath();
/** Screenshots for docs/portal.md, written only when asked (they change with every run's times). */
const SCREENSHOTS = process.env.ROUTERJOBS_PORTAL_SCREENSHOTS === "1" ? "docs/portal" : undefined;
const XSS = "<img src=x onerror=alert(1)>";

describe.skipIf(!executablePath)("portal in a real browser (headless Chromium)", () => {
  let svc: TestService;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const dialogs: string[] = [];

  /** A fresh browser profile (no cookies) with a page that records any dialog a script opens. */
  async function newPage(width = 1280): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width, height: 900 } });
    contexts.push(context);
    // The suite's deadline for a wait (vitest.config.ts), not Playwright's 30 s: a deadline for a broken
    // build, which a page on a loaded machine does not meet by accident.
    context.setDefaultTimeout(120_000);
    const page = await context.newPage();
    page.on("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    return page;
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.goto(`${svc.url}/portal`);
    await page.getByLabel("API token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
    browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await svc?.close();
  });

  it("signs in with a good token, and refuses a wrong and a malformed one with the same message", async () => {
    const page = await newPage();
    await signIn(page, `${TOKEN_A.slice(0, -2)}zz`);
    await expect(page.getByRole("alert").textContent()).resolves.toContain("That token was not accepted");
    await signIn(page, "definitely not a token");
    await expect(page.getByRole("alert").textContent()).resolves.toContain("That token was not accepted");
    await signIn(page, TOKEN_A);
    await page.getByRole("heading", { name: "Routers" }).waitFor();
    expect(await page.getByRole("link", { name: "edge-a", exact: true }).count()).toBe(1);
    expect(await page.content()).not.toContain(TOKEN_A.split(":")[2]);
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === "__Host-rj_session")).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: "Strict",
    });
  });

  it("sends the security headers, and another team's router is not found", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    const response = await page.goto(`${svc.url}/portal/routers/${ROUTER_B}`);
    expect(response?.status()).toBe(404);
    const headers = response?.headers() ?? {};
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    await page.getByRole("heading", { name: "Not found" }).waitFor();
    expect(await page.content()).not.toContain("edge-b");
  });

  it("shows a job submitted through the API in an open router page, up to completed, without a reload", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    await page.evaluate(() => {
      (globalThis as { notReloaded?: boolean }).notReloaded = true;
    });
    const submitted = await svc.submit(ROUTER_A, {
      description: "live deploy",
      script: "/ip address add address=10.7.0.1/24 interface=ether1",
      express_execute: true,
      make_backup: true,
    });
    expect(submitted.status).toBe(202);
    const row = page.locator("#live tbody tr", { hasText: "live deploy" });
    await row.locator(".status-completed").waitFor();
    expect(await row.locator(".status").textContent()).toBe("completed");
    expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
    if (SCREENSHOTS) await screenshots(page, "router");
  });

  it("shows a failed job's router error beside its failing line", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    const script =
      "/ip address add address=10.8.0.1/24 interface=ether1\n/ip address add address=10.8.0.1/24 interface=ether1";
    await svc.submit(ROUTER_A, { description: "duplicate address", script, express_execute: true });
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    const row = page.locator("#live tbody tr", { hasText: "duplicate address" });
    await row.locator(".status-failed").waitFor();
    await row.getByRole("link", { name: "duplicate address" }).click();
    const failing = page.locator("ol.script li.failing");
    await failing.waitFor();
    expect(await page.locator("ol.script li").count()).toBe(2);
    expect(await page.locator("ol.script li").nth(1).getAttribute("class")).toBe("failing");
    expect(await failing.locator(".router-error").textContent()).toContain("already have such address");
    if (SCREENSHOTS) await screenshots(page, "job");
  });

  it("downloads a job's backup as its export text, from the job page", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    await svc.submit(ROUTER_A, {
      description: "with a backup",
      script: "/system identity set name=after-backup",
      express_execute: true,
      make_backup: true,
    });
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    const row = page.locator("#live tbody tr", { hasText: "with a backup" });
    await row.locator(".status-completed").waitFor();
    await row.getByRole("link", { name: "with a backup" }).click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "download its export" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^routerjobs-job-\d+\.rsc$/);
    const text = readFileSync(await download.path(), "utf8");
    expect(text).toMatch(/^# RouterOS .* export/);
    expect(text).not.toContain("after-backup");
  });

  it("renders an HTML description as text and runs none of it", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    await svc.submit(ROUTER_A, { description: XSS, script: "/log info x", needs_acknowledgement: false });
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    const link = page.locator("#live tbody a", { hasText: "onerror" });
    expect(await link.textContent()).toBe(XSS);
    expect(await page.locator("main img").count()).toBe(0);
    await page.goto(`${svc.url}/portal`);
    expect(await page.locator("main img").count()).toBe(0);
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    await page.locator("#live tbody a", { hasText: "onerror" }).click();
    await page.getByRole("heading", { name: XSS }).waitFor();
    expect(dialogs).toEqual([]);
    if (SCREENSHOTS) await screenshots(page, "routers", `${svc.url}/portal`);
  });

  it("signs out: the session ends at the server and its pages lead to the sign-in form", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    const session = (await page.context().cookies()).find((cookie) => cookie.name === "__Host-rj_session");
    expect(session).toBeDefined();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const hash = createHash("sha256")
      .update(session?.value ?? "")
      .digest("hex");
    const { rows } = await svc.service.app.db.query("SELECT 1 FROM portal_sessions WHERE id_hash = $1", [
      hash,
    ]);
    expect(rows).toHaveLength(0);
    expect((await page.context().cookies()).some((cookie) => cookie.name === "__Host-rj_session")).toBe(
      false,
    );
  });

  /** Desktop and phone widths of the page at `url` (default: the page as it is). */
  async function screenshots(page: Page, name: string, url?: string): Promise<void> {
    if (!SCREENSHOTS) return;
    mkdirSync(SCREENSHOTS, { recursive: true });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      if (url) await page.goto(url);
      await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
    }
  }
});
