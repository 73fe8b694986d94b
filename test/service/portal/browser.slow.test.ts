import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markDescription, tagOf } from "../../../src/contract/attempt-marker.js";
import type { Wave } from "../../../src/contract/wave-check.js";
import {
  ADMIN_TOKEN,
  eventually,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
  TEAM_A_NAME,
  type TestService,
  TOKEN_A,
} from "../harness.js";
import { chromiumPath } from "./chromium.js";

const executablePath = chromiumPath();
/** Screenshots for docs/portal.md, written only when asked (they change with every run's times). */
const SCREENSHOTS = process.env.ROUTERJOBS_PORTAL_SCREENSHOTS === "1" ? "docs/portal" : undefined;
const XSS = "<img src=x onerror=alert(1)>";
/** The page's window, as far as a test reads it. */
type InPage = { getComputedStyle(element: unknown): { fill: string } };

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

  it("shows a failed job's router error beside its failing line, and its receiver's URL without the path secret", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    const script =
      "/ip address add address=10.8.0.1/24 interface=ether1\n/ip address add address=10.8.0.1/24 interface=ether1";
    // Nothing listens on loopback's port 9: the deliveries fail, and the page shows them.
    const secret = "path-secret-0123456789abcdefghijkl";
    await svc.submit(ROUTER_A, {
      description: "duplicate address",
      script,
      express_execute: true,
      notify_url: `https://127.0.0.1:9/notify/${secret}`,
    });
    await page.goto(`${svc.url}/portal/routers/${ROUTER_A}`);
    const row = page.locator("#live tbody tr", { hasText: "duplicate address" });
    await row.locator(".status-failed").waitFor();
    await row.getByRole("link", { name: "duplicate address" }).click();
    const failing = page.locator("ol.script li.failing");
    await failing.waitFor();
    expect(await page.locator("ol.script li").count()).toBe(2);
    expect(await page.locator("ol.script li").nth(1).getAttribute("class")).toBe("failing");
    expect(await failing.locator(".router-error").textContent()).toContain("already have such address");
    await page.getByText("https://127.0.0.1:9/•••", { exact: true }).waitFor();
    expect(await page.content()).not.toContain(secret);
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

  /** A job as `routerjobs apply` submits it in a rollout (its wave and marker), waited for to its end. */
  async function deployed(routerId: string, name: string, wave: Wave, script: string): Promise<string> {
    const marker = {
      resourceTag: tagOf(`office/${name}/dns`),
      definitionTag: tagOf(`${name}:${script}`),
      instanceTag: tagOf(`${name}-instance`),
      attempt: 1,
    };
    const answer = await svc.submit(routerId, {
      description: markDescription("dns servers", marker, wave),
      script,
      express_execute: true,
    });
    expect(answer.status).toBe(202);
    const jobId = answer.body.data.job_id as string;
    await eventually(async () => {
      const jobs = (await svc.jobs(routerId)) as { id: string; status: string }[];
      const status = jobs.find((listed) => listed.id === jobId)?.status;
      return status === "completed" || status === "failed" || undefined;
    });
    return jobId;
  }

  it("draws a deploy's timeline under the CSP: routers by wave, the failure marked and linked to its job", async () => {
    // A fleet of five: a canary, then two, then two with one failing, as a rollout submits them.
    const routers: { id: string; name: string }[] = [
      { id: ROUTER_A, name: "edge-a" },
      { id: ROUTER_A2, name: "edge-a2" },
    ];
    for (const name of ["branch-1", "branch-2", "branch-3"]) {
      const made = await svc.call("POST", "/admin/routers", {
        token: ADMIN_TOKEN,
        body: { team_id: TEAM_A, name },
      });
      expect(made.status).toBe(200);
      routers.push({ id: made.body.data.id as string, name });
    }
    const dns = "/ip dns set servers=10.0.0.53";
    const waves = [[0], [1, 2], [3, 4]];
    let failedJob = "";
    for (const [index, members] of waves.entries()) {
      await Promise.all(
        members.map(async (member) => {
          const router = routers[member] as { id: string; name: string };
          const failing = router.name === "branch-3";
          const script = failing ? "/ip address add address=10.1.0.1/24 interface=ether9" : dns;
          const jobId = await deployed(router.id, router.name, { wave: index + 1, waves: 3 }, script);
          if (failing) failedJob = jobId;
        }),
      );
    }
    const page = await newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await signIn(page, TOKEN_A);
    await page.getByRole("link", { name: "Deploys", exact: true }).click();
    await page.getByRole("heading", { name: "Deploys", exact: true }).waitFor();
    const timeline = page.getByRole("region", { name: "Deploy timeline" });
    for (const wave of ["Wave 1 of 3 · 1 router", "Wave 2 of 3 · 2 routers", "Wave 3 of 3 · 2 routers"])
      await timeline.getByText(wave).waitFor();
    // The bars are drawn: a real width in the page, from the stylesheet's colours.
    const failedBar = page.locator(`svg.track a[href="/portal/jobs/${failedJob}"] rect.bar-failed`);
    const box = await failedBar.boundingBox();
    expect(box?.width).toBeGreaterThan(0);
    // Run in the page (typed by hand: the project's types have no DOM): the colour the stylesheet gave the bar.
    const fill = await failedBar.evaluate(
      (rect) => (globalThis as unknown as InPage).getComputedStyle(rect).fill,
    );
    expect(fill).toBe("rgb(198, 40, 40)");
    expect(await page.locator("svg.track .fail-mark").count()).toBe(1);
    expect(await timeline.getByRole("row").filter({ hasText: "branch-3" }).textContent()).toContain("failed");
    expect(violations).toEqual([]);
    if (SCREENSHOTS) await screenshots(page, "deploy");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator(`svg.track a[href="/portal/jobs/${failedJob}"]`).click();
    await page.locator(".router-error").first().waitFor();
    expect(page.url()).toContain(`/portal/jobs/${failedJob}`);
  });

  it("names the team in the header and links a failed count to the router's failed jobs and their errors", async () => {
    const page = await newPage();
    await signIn(page, TOKEN_A);
    expect(await page.locator("header").textContent()).toContain(`team ${TEAM_A_NAME}`);
    expect(await page.locator("header").textContent()).not.toContain(TEAM_A);
    await svc.submit(ROUTER_A2, {
      description: "twice the address",
      script:
        "/ip address add address=10.6.0.1/24 interface=ether1\n/ip address add address=10.6.0.1/24 interface=ether1",
      express_execute: true,
    });
    await page.goto(`${svc.url}/portal`);
    // The list is live: the link appears when the job fails.
    const count = page.locator(`a.failed-count[href="/portal/routers/${ROUTER_A2}?status=failed"]`);
    await count.waitFor();
    if (SCREENSHOTS) {
      await screenshots(page, "routers");
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await count.click();
    await page.getByRole("columnheader", { name: "Error" }).waitFor();
    const row = page.locator("#live tbody tr", { hasText: "twice the address" });
    expect(await row.locator("a.router-error").textContent()).toContain("already have such address");
    expect(await page.locator("#live tbody .status").allTextContents()).not.toContain("completed");
    if (SCREENSHOTS) await screenshots(page, "failed");
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
