import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupFileName } from "../../../src/service/portal/backup-route.js";
import {
  eventually,
  type Loose,
  ROUTER_A,
  startTestService,
  type TestService,
  TOKEN_A,
  TOKEN_B,
} from "../harness.js";
import { PortalClient } from "./portal-client.js";

const SECRET = "S3cret-Pass-9";
const UNKNOWN_JOB = "0f000000-0000-4000-8000-00000000000f";

describe("a job's backup export as a download (portal)", () => {
  let svc: TestService;
  const clients: PortalClient[] = [];
  let withoutBackup: string;
  let withBackup: Loose;

  const signedIn = async (token: string) => {
    const client = new PortalClient(svc);
    clients.push(client);
    await client.signIn(token);
    return client;
  };
  /** Submits an express job and waits until the service has finished it. */
  const run = async (job: Record<string, unknown>): Promise<Loose> => {
    const answer = await svc.submit(ROUTER_A, { express_execute: true, ...job });
    expect(answer.status).toBe(202);
    return eventually(async () =>
      (await svc.jobs(ROUTER_A)).find(
        (row) => row.description === job.description && ["completed", "failed"].includes(row.status),
      ),
    );
  };

  beforeAll(async () => {
    svc = await startTestService({ tickMs: 60_000 });
    // A user with a password (a secret the backup holds but its export must not show), then a job with a backup.
    const first = await run({
      description: "secret and identity",
      script: `/user add name=ops group=full password=${SECRET}\n/system identity set name=backup-check`,
    });
    expect(first.status).toBe("completed");
    withoutBackup = first.id;
    withBackup = await run({
      description: "after the backup",
      script: "/ip address add address=10.9.0.1/24 interface=ether1",
      make_backup: true,
    });
    expect(withBackup.status).toBe("completed");
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await svc?.close();
  });

  it("links the export from the job page and sends it as a text attachment, secrets left out", async () => {
    const browser = await signedIn(TOKEN_A);
    const page = await browser.get(`/portal/jobs/${withBackup.id}`);
    expect(page.text).toContain(`href="/portal/jobs/${withBackup.id}/backup"`);
    const download = await browser.get(`/portal/jobs/${withBackup.id}/backup`);
    expect(download.status).toBe(200);
    expect(download.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(download.headers["content-disposition"]).toMatch(
      /^attachment; filename="routerjobs-job-\d+\.rsc"$/,
    );
    expect(download.headers["x-content-type-options"]).toBe("nosniff");
    expect(download.headers["cache-control"]).toBe("no-store");
    // The configuration before the job's script: the earlier identity, not the address the job added.
    expect(download.text).toMatch(/^# RouterOS .* export\n/);
    expect(download.text).toContain("/system identity\nset name=backup-check");
    expect(download.text).not.toContain("10.9.0.1");
    expect(download.text).not.toContain(SECRET);
    expect(download.text).not.toContain(TOKEN_A.split(":")[2]);
  });

  it("answers a job without a backup with a page saying so", async () => {
    const browser = await signedIn(TOKEN_A);
    const page = await browser.get(`/portal/jobs/${withoutBackup}`);
    expect(page.text).not.toContain('/backup"');
    const download = await browser.get(`/portal/jobs/${withoutBackup}/backup`);
    expect(download.status).toBe(404);
    expect(download.headers["content-type"]).toMatch(/^text\/html/);
    expect(download.text).toContain("This job took no backup.");
  });

  it("gives another team the same not-found page as a job that does not exist", async () => {
    const other = await signedIn(TOKEN_B);
    const theirs = await other.get(`/portal/jobs/${withBackup.id}/backup`);
    const none = await other.get(`/portal/jobs/${UNKNOWN_JOB}/backup`);
    const malformed = await other.get("/portal/jobs/not-a-uuid/backup");
    for (const answer of [theirs, none, malformed]) {
      expect(answer.status).toBe(404);
      expect(answer.headers["content-disposition"]).toBeUndefined();
      expect(answer.text).toContain("There is no such page, router or job in your view.");
    }
    expect(theirs.text.replace(/name="csrf" value="[^"]+"/, "")).toBe(
      none.text.replace(/name="csrf" value="[^"]+"/, ""),
    );
    expect(theirs.text).not.toContain("backup-check");
  });

  it("sends a request without a session to the sign-in form", async () => {
    const stranger = new PortalClient(svc);
    clients.push(stranger);
    const answer = await stranger.get(`/portal/jobs/${withBackup.id}/backup`);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe("/portal");
  });

  it("says so when the router no longer has the backup", async () => {
    const browser = await signedIn(TOKEN_A);
    await svc.service.app.db.query("UPDATE jobs SET backup_name = 'gone.backup' WHERE id = $1", [
      withoutBackup,
    ]);
    const answer = await browser.get(`/portal/jobs/${withoutBackup}/backup`);
    expect(answer.status).toBe(404);
    expect(answer.text).toContain("could not hand over gone.backup");
    await svc.service.app.db.query("UPDATE jobs SET backup_name = NULL WHERE id = $1", [withoutBackup]);
  });

  it("names the download after the backup, in characters every file system takes", () => {
    expect(backupFileName("routerjobs-job-12.backup")).toBe("routerjobs-job-12.rsc");
    expect(backupFileName("routerjobs-job-12.rsc")).toBe("routerjobs-job-12.rsc");
    expect(backupFileName('a "b"/c\r\n')).toBe("a__b__c__.rsc");
    expect(backupFileName(".backup")).toBe("backup.rsc");
  });
});
