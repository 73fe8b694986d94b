/**
 * What the provider asks of the service once per router, against the embedded service on loopback: the job
 * list (concurrent resources of a router share one read in flight, a failed read is asked again), and the
 * twin's export (one read per router; what a script does comes back as the plan's diff lines, a script that
 * would fail comes back with the router's error and line, and a second provider process of the same
 * Terraform run takes what the first found without a read); and the data sources' reads.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../../src/client/client.js";
import { reachFor } from "../../../src/deploy/plan/reach-options.js";
import type { ProviderContext } from "../../../src/deploy/provider/config.js";
import { jobsDataSource, routerDataSource } from "../../../src/deploy/provider/data-sources.js";
import { RouterJobLists } from "../../../src/deploy/provider/job-lists.js";
import { PlanTwin, planMemoDir } from "../../../src/deploy/provider/plan-twin.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../../service/harness.js";

const UNKNOWN_ROUTER = "c1000000-0000-4000-8000-0000000000c1";

describe("the provider's reads per router", () => {
  let svc: TestService;
  let dir: string;
  let client: RouterJobsClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-provider-reads-"));
    svc = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } });
    client = new RouterJobsClient({
      baseUrl: new URL(svc.url),
      token: TOKEN_A,
      ca: svc.service.ca,
      budgetDir: dir,
      rateLimit: { count: 1000, windowMs: 1000 },
    });
  });
  afterAll(async () => {
    await client?.close();
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const admitted = () => [...svc.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);

  it("reads a router's job list once for every resource of it, concurrent ones too", async () => {
    await svc.submit(ROUTER_A, { description: "listed", script: "/log info x" });
    const lists = new RouterJobLists(client, new AbortController().signal);
    const before = admitted();
    const deadline = Date.now() + 20_000;
    const answers = await Promise.all([1, 2, 3].map(() => lists.of(ROUTER_A, deadline)));
    await lists.of(ROUTER_A, deadline);
    expect(admitted() - before).toBe(1);
    expect(answers[0]?.map((job) => job.description)).toContain("listed");
    expect(new Set(answers)).toHaveProperty("size", 1);
  });

  it("asks again after a read that failed, and fails with the service's reason", async () => {
    const lists = new RouterJobLists(client, new AbortController().signal);
    const before = admitted();
    const deadline = Date.now() + 20_000;
    await expect(lists.of(UNKNOWN_ROUTER, deadline)).rejects.toThrow(/router/i);
    await expect(lists.of(UNKNOWN_ROUTER, deadline)).rejects.toThrow(/router/i);
    expect(admitted() - before).toBe(2);
  });

  it("plans a script on the router's twin with one export read, and keeps it for the run's next walk", async () => {
    const memo = await planMemoDir(join(dir, "plans"));
    expect(memo, "this machine names the Terraform process by /proc").toBeDefined();
    const twin = new PlanTwin(client, memo);
    const before = admitted();
    const [dns, identity] = await Promise.all([
      twin.effectOf(ROUTER_A2, "/ip dns set servers=9.9.9.9"),
      twin.effectOf(ROUTER_A2, "/system identity set name=planned"),
    ]);
    expect(admitted() - before).toBe(1);
    expect(dns).toEqual({
      kind: "changes",
      text: expect.stringMatching(/^\/ip dns\n {2}[+~] .*servers=9\.9\.9\.9/),
    });
    expect(identity).toMatchObject({ kind: "changes", text: expect.stringContaining("name=planned") });

    const nextWalk = new PlanTwin(client, memo);
    expect(await nextWalk.effectOf(ROUTER_A2, "/ip dns set servers=9.9.9.9")).toEqual(dns);
    expect(admitted() - before).toBe(1);
  });

  it("removes the folders of ended Terraform processes under its root, and nothing else", async () => {
    const root = join(dir, "memo-cleanup");
    await mkdir(join(root, "999999999-1"), { recursive: true });
    await mkdir(join(root, "notes"), { recursive: true });
    await writeFile(join(root, "README"), "kept");
    const memo = await planMemoDir(root);
    expect(memo).toBeDefined();
    expect((await readdir(root)).sort()).toEqual(["README", "notes"]);
  });

  it("gives the router's error and line for a script that would fail on the twin", async () => {
    const twin = new PlanTwin(client, undefined);
    const effect = await twin.effectOf(
      ROUTER_A2,
      "/system identity set name=ok\n/ip address add address=10.9.9.9/24 interface=nope",
    );
    expect(effect).toEqual({
      kind: "fails",
      error: expect.stringMatching(/input does not match any value of interface.*\(line 2\b/),
    });
  });

  it("finds a script that would cut the service off, and says when the path cannot be checked", async () => {
    // GIVEN the service's path to the router checked after each script (inbound, to API-SSL)
    const twin = new PlanTwin(client, undefined, reachFor({}));
    // THEN a script that moves API-SSL's port cuts it, naming the setting; one that does not keeps it
    expect(await twin.effectOf(ROUTER_A2, "/ip service set api-ssl port=8730")).toEqual({
      kind: "cuts",
      text: expect.stringContaining("port=8730"),
      reason: "/ip service api-ssl listens on tcp/8730, not tcp/8729",
      path: expect.stringContaining("tcp/8729"),
    });
    expect(await twin.effectOf(ROUTER_A2, "/ip dns set servers=9.9.9.9")).toEqual({
      kind: "changes",
      text: expect.stringContaining("servers=9.9.9.9"),
    });
    // AND a path the router's configuration cannot carry even before the script is left unchecked, said why
    const elsewhere = reachFor({ routers: new Map([[ROUTER_A2, { address: "10.99.99.99" }]]) });
    expect(
      await new PlanTwin(client, undefined, elsewhere).effectOf(ROUTER_A2, "/ip dns set servers=9.9.9.9"),
    ).toMatchObject({ kind: "changes", unchecked: expect.stringContaining("before the change") });
  });

  it("says why when the router's export cannot be read, without failing the plan", async () => {
    const effect = await new PlanTwin(client, undefined).effectOf(UNKNOWN_ROUTER, "/log info x");
    expect(effect).toMatchObject({ kind: "unavailable", reason: expect.stringMatching(/router/i) });
  });

  it("reads a router's identity, model and export, and its jobs filtered by description", async () => {
    const context: ProviderContext = {
      client,
      jobLists: new RouterJobLists(client, new AbortController().signal),
      signal: new AbortController().signal,
    };
    await svc.submit(ROUTER_A, { description: "data source wanted", script: "/log info y" });
    const before = admitted();
    const router = await routerDataSource.read(context, { router_id: ROUTER_A2 });
    // Three synchronous commands: the identity, the resource (model and version at once), the export.
    expect(admitted() - before).toBe(3);
    expect(router).toMatchObject({
      router_id: ROUTER_A2,
      identity: expect.any(String),
      export: expect.stringContaining("RouterOS"),
    });
    // The simulated router without a hardware model has no board name: null, not an error.
    expect(router).toHaveProperty("model");
    const jobs = await jobsDataSource.read(context, {
      router_id: ROUTER_A,
      description_contains: "source wanted",
    });
    expect(jobs.jobs).toEqual([
      expect.objectContaining({ description: "data source wanted", status: expect.any(String) }),
    ]);
    expect(routerDataSource.validate({ router_id: "edge-1" }).map((problem) => problem.summary)).toEqual([
      'router_id: must be a UUID (got "edge-1")',
    ]);
  });
});
