import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markDescription, tagOf } from "../../../src/contract/attempt-marker.js";
import {
  ADMIN_TOKEN,
  eventually,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
  TEAM_A_NAME,
  TEAM_B,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "../harness.js";
import { PortalClient } from "./portal-client.js";

/** A receiver's URL: its path secret is what must never reach a page. */
const PATH_SECRET = "s3cr3t-path-0123456789abcdefghijklmnop";
const DUPLICATE =
  "/ip address add address=10.9.0.1/24 interface=ether1\n/ip address add address=10.9.0.1/24 interface=ether1";
const marker = (resource: string, attempt = 1) => ({
  resourceTag: tagOf(resource),
  definitionTag: tagOf(`${resource}-definition`),
  instanceTag: tagOf(`${resource}-instance`),
  attempt,
});

describe("portal pages: names, masked secrets, links, the error column, deploys", () => {
  let svc: TestService;
  const clients: PortalClient[] = [];
  const signedIn = async (token = TOKEN_A) => {
    const client = new PortalClient(svc);
    clients.push(client);
    expect((await client.signIn(token)).status).toBe(303);
    return client;
  };
  const jobIdOf = (answer: { status: number; body: { data?: { job_id?: string } } }) => {
    expect(answer.status).toBe(202);
    return answer.body.data?.job_id as string;
  };
  /** Waits until the job reached a final state. */
  const settled = async (routerId: string, jobId: string, token = TOKEN_A) =>
    eventually(async () => {
      const jobs = (await svc.jobs(routerId, token)) as { id: string; status: string }[];
      const job = jobs.find((listed) => listed.id === jobId);
      return job && ["completed", "failed"].includes(job.status) ? job : undefined;
    });

  beforeAll(async () => {
    // Retries an hour apart at most: a failed delivery's error stays as the test wrote it.
    svc = await startTestService({ tickMs: 60_000, notifyRetryBaseMs: 3_600_000 });
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await svc?.close();
  });

  it("answers GET /portal/sign-in with the sign-in form, and a signed-in visit with the routers", async () => {
    const anonymous = new PortalClient(svc);
    clients.push(anonymous);
    const form = await anonymous.get("/portal/sign-in");
    expect(form.status).toBe(200);
    expect(form.text).toContain('<form method="post" action="/portal/sign-in"');
    expect(form.headers["content-security-policy"]).toContain("default-src 'none'");
    const client = await signedIn();
    const again = await client.get("/portal/sign-in");
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe("/portal");
  });

  it("names the team and the routers, not their ids; a team without a name by its id's first part", async () => {
    const client = await signedIn();
    const routers = await client.get("/portal");
    expect(routers.text).toContain(`team ${TEAM_A_NAME}`);
    expect(routers.text).not.toContain(TEAM_A);
    // The id only in links: the list reads by name.
    expect(routers.text.replaceAll(`href="/portal/routers/${ROUTER_A}`, "")).not.toContain(ROUTER_A);
    expect(routers.text).toContain(">edge-a</a>");
    const other = await (await signedIn(TOKEN_B)).get("/portal");
    expect(other.text).toContain(`team ${TEAM_B.slice(0, 8)}…`);
    expect(other.text).not.toContain(TEAM_B);
    const admin = await (await signedIn(ADMIN_TOKEN)).get("/portal");
    expect(admin.text).toContain(`<td>${TEAM_A_NAME}</td>`);
    expect(admin.text).not.toContain(TEAM_A);
    // The router's own page keeps its id, for the CLI.
    expect((await client.get(`/portal/routers/${ROUTER_A}`)).text).toContain(`<code>${ROUTER_A}</code>`);
  });

  it("takes a team's name from the admin API, and refuses one too long naming the field", async () => {
    const team = "c0000000-0000-4000-8000-00000000000c";
    const tooLong = await svc.call("POST", "/admin/tokens", {
      token: ADMIN_TOKEN,
      body: { team_id: team, team_name: "x".repeat(101) },
    });
    expect(tooLong.status).toBe(422);
    expect(JSON.stringify(tooLong.body)).toContain("team_name");
    const made = await svc.call("POST", "/admin/tokens", {
      token: ADMIN_TOKEN,
      body: { team_id: team, team_name: "Harbour <Ops>" },
    });
    expect(made.status).toBe(200);
    const page = await (await signedIn(made.body.data.token)).get("/portal");
    expect(page.text).toContain("team Harbour &lt;Ops&gt;");
  });

  it("gives a router's failed count as a link to its failed jobs, and the log an error column", async () => {
    const failed = jobIdOf(
      await svc.submit(ROUTER_A2, {
        description: "twice the address",
        script: DUPLICATE,
        express_execute: true,
      }),
    );
    await settled(ROUTER_A2, failed);
    const client = await signedIn();
    const routers = await client.get("/portal");
    const link = new RegExp(
      `<a class="failed-count" href="/portal/routers/${ROUTER_A2}\\?status=failed"[^>]*>1</a>`,
    );
    expect(routers.text).toMatch(link);
    const log = await client.get(`/portal/routers/${ROUTER_A2}?status=failed`);
    expect(log.status).toBe(200);
    expect(log.text).toContain('<th scope="col">Error</th>');
    expect(log.text).toMatch(
      new RegExp(
        `<a class="router-error" href="/portal/jobs/${failed}#failing-line">[^<]*already have such address`,
      ),
    );
  });

  it("shows a notify URL's origin only: its path secret is on no page, nor in a delivery's error", async () => {
    // Port 9 on loopback: nothing listens, so each delivery fails at once and waits (up to an hour) to retry.
    const url = `https://127.0.0.1:9/notify/${PATH_SECRET}?k=${PATH_SECRET}`;
    const jobId = jobIdOf(
      await svc.submit(ROUTER_A, {
        description: "with a receiver",
        script: "/log info notified",
        express_execute: true,
        notify_url: url,
      }),
    );
    await settled(ROUTER_A, jobId);
    const client = await signedIn();
    await eventually(async () => {
      // A delivery error that quotes the URL, as a client library's message may (written again should a retry
      // have replaced it).
      await svc.service.app.db.query("UPDATE outbox SET last_error = $2 WHERE job_id = $1", [
        jobId,
        `request to ${url} failed; POST /notify/${PATH_SECRET} refused`,
      ]);
      const job = await client.get(`/portal/jobs/${jobId}`);
      expect(job.status).toBe(200);
      expect(job.text).toContain("To <code>https://127.0.0.1:9/•••?•••</code>");
      return (
        job.text.includes("request to https://127.0.0.1:9/•••?••• failed; POST /••• refused") || undefined
      );
    });
    const pages = ["/portal", "/portal/deploys", `/portal/routers/${ROUTER_A}`, `/portal/jobs/${jobId}`];
    for (const path of pages) {
      const page = await client.get(path);
      expect(page.text, path).not.toContain(PATH_SECRET);
      expect(page.text, path).not.toContain(TOKEN_A.split(":")[2]);
    }
  });

  it("groups marked jobs into a deploy: routers by wave, failures marked, drawn without script", async () => {
    const canary = jobIdOf(
      await svc.submit(ROUTER_A, {
        description: markDescription("dns servers", marker("fleet/edge-a/dns"), { wave: 1, waves: 2 }),
        script: "/ip dns set servers=10.0.0.53",
        express_execute: true,
      }),
    );
    await settled(ROUTER_A, canary);
    const second = jobIdOf(
      await svc.submit(ROUTER_A2, {
        description: markDescription("dns servers", marker("fleet/edge-a2/dns"), { wave: 2, waves: 2 }),
        script: DUPLICATE,
        express_execute: true,
      }),
    );
    await settled(ROUTER_A2, second);
    // Another team's deploy is not in this team's view.
    await svc.submit(
      ROUTER_B,
      {
        description: markDescription("other team", marker("b/edge-b/x")),
        script: "/log info b",
        express_execute: true,
      },
      TOKEN_B,
    );
    const client = await signedIn();
    const list = await client.get("/portal/deploys");
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/portal/deploys/${canary}"`);
    expect(list.text).not.toContain("edge-b");
    expect(list.text).not.toContain("other team");
    const page = await client.get(`/portal/deploys/${canary}`);
    expect(page.status).toBe(200);
    const wave1 = page.text.indexOf("Wave 1 of 2 · 1 router");
    const wave2 = page.text.indexOf("Wave 2 of 2 · 1 router");
    expect(wave1).toBeGreaterThan(0);
    expect(wave2).toBeGreaterThan(wave1);
    // edge-a in the first wave, edge-a2 in the second, each linking its router and its job.
    const edgeA = page.text.indexOf(`<a href="/portal/routers/${ROUTER_A}">edge-a</a>`);
    const edgeA2 = page.text.indexOf(`<a href="/portal/routers/${ROUTER_A2}">edge-a2</a>`);
    expect(edgeA).toBeGreaterThan(wave1);
    expect(edgeA).toBeLessThan(wave2);
    expect(edgeA2).toBeGreaterThan(wave2);
    expect(page.text).toContain(`<a href="/portal/jobs/${second}"><rect class="bar bar-failed"`);
    expect(page.text).toContain('class="fail-mark"');
    expect(page.text).toContain("1 failed");
    expect(page.text).toContain("<svg");
    expect(page.text).not.toMatch(/<script(?! src=)|\sstyle=|\son\w+=/);
    // Not a deploy's first job, a malformed id, another team's deploy: the same not-found page.
    expect((await client.get(`/portal/deploys/${second}`)).status).toBe(404);
    expect((await client.get("/portal/deploys/not-a-uuid")).status).toBe(404);
  });
});
