import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpsSink } from "../../helpers/https-sink.js";
import { eventually, ROUTER_A, startTestService, type TestService, TOKEN_A } from "../harness.js";
import { chromiumPath } from "./chromium.js";

const executablePath = chromiumPath();

/**
 * The live parts beyond a router's log, in headless Chromium: the routers list follows its routers' jobs, and
 * a job page follows its notifications after the job ended. Every wait is on the page's DOM, never a sleep.
 */
describe.skipIf(!executablePath)("portal live pages in a real browser", () => {
  let svc: TestService;
  let sink: HttpsSink;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  async function signedInPage(): Promise<Page> {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    contexts.push(context);
    // The suite's deadline for a wait (vitest.config.ts), not Playwright's 30 s: a deadline for a broken
    // build, which a page on a loaded machine does not meet by accident.
    context.setDefaultTimeout(120_000);
    const page = await context.newPage();
    await page.goto(`${svc.url}/portal`);
    await page.getByLabel("API token").fill(TOKEN_A);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Routers" }).waitFor();
    return page;
  }

  /** Marks the document; a reload would lose the mark. */
  const markDocument = (page: Page) =>
    page.evaluate(() => {
      (globalThis as { notReloaded?: boolean }).notReloaded = true;
    });
  const stillTheSameDocument = (page: Page) =>
    page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded === true);

  beforeAll(async () => {
    sink = await HttpsSink.start();
    // Retries at most a second apart: a delivery let through is retried soon after.
    svc = await startTestService({ tickMs: 60_000, notifyCa: sink.ca, notifyRetryMaxMs: 1000 });
    browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await svc?.close();
    await sink?.close();
  });

  it("updates the routers list's last job and failed count without a reload", async () => {
    const page = await signedInPage();
    const row = page.locator(`#live tbody tr:has(a[href="/portal/routers/${ROUTER_A}"])`);
    const failedBefore = Number(await row.locator("td").last().textContent());
    await markDocument(page);
    const submitted = await svc.submit(ROUTER_A, {
      description: "list failure",
      script: "/ip address add address=10.6.0.1/24 interface=nonexistent",
      express_execute: true,
    });
    expect(submitted.status).toBe(202);
    await row.getByRole("link", { name: "list failure" }).waitFor();
    await row.locator(".status-failed").waitFor();
    expect(await row.locator("td").last().textContent()).toBe(String(failedBefore + 1));
    expect(await stillTheSameDocument(page)).toBe(true);
  });

  it("shows a notification delivered after the job ended, without a reload", async () => {
    sink.failNext(Number.MAX_SAFE_INTEGER);
    const submitted = await svc.submit(ROUTER_A, {
      description: "late delivery",
      script: "/log info late",
      express_execute: true,
      notify_url: `${sink.url}/hook`,
    });
    expect(submitted.status).toBe(202);
    const job = await eventually(async () =>
      (await svc.jobs(ROUTER_A)).find(
        (item) => item.description === "late delivery" && item.status === "completed",
      ),
    );
    // Its notifications go out in order: the first has been refused at least once, the rest wait behind it.
    await eventually(async () =>
      sink.attempts.some((attempt) => attempt.body.job_id === job.id) ? true : undefined,
    );
    const page = await signedInPage();
    await page.goto(`${svc.url}/portal/jobs/${job.id}`);
    const completed = page
      .locator('[aria-label="Notifications"] tbody tr')
      .filter({ has: page.locator("td:first-child", { hasText: /^completed$/ }) });
    expect(await completed.textContent()).toContain("next try");
    await markDocument(page);
    sink.failNext(0);
    await completed.filter({ hasText: "delivered" }).waitFor();
    expect(await stillTheSameDocument(page)).toBe(true);
    expect(sink.statuses(job.id)).toContain("completed");
  });
});
