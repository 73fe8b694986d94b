/**
 * plan and import against a real service on loopback (TLS, authentication, the synchronous route) whose
 * routers are simulated and hold realistic configurations: an office with VLANs and WireGuard, a home router.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import { RouterConfig } from "../../../src/deploy/constructs/index.js";
import { importModule } from "../../../src/deploy/plan/import-module.js";
import { readLiveConfig } from "../../../src/deploy/plan/live-config.js";
import { planStack } from "../../../src/deploy/plan/plan.js";
import { planText } from "../../../src/deploy/plan/report.js";
import { readStackJobs, stackFile } from "../../../src/deploy/plan/stack-jobs.js";
import {
  clientOf,
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  type TestService,
} from "../../service/harness.js";
import { CountingBackend, homeRouter, officeVlans, synthStack } from "./fixtures.js";

let service: TestService;
let backend: CountingBackend;
let client: RouterJobsClient;
const dirs: string[] = [];

async function configure(routerId: string, script: string): Promise<void> {
  const answer = await service.call("POST", `/api/synchronous/${routerId}`, {
    body: { command: "/execute", parameters: `=script=${script}` },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
}

async function planOf(build: (stack: import("constructs").Construct) => void, all = true) {
  const dir = synthStack(build);
  const jobs = await readStackJobs(await stackFile(dir));
  backend.reset();
  const plan = await planStack({ jobs, all, readConfig: (id) => readLiveConfig(client, id) });
  return plan;
}

beforeAll(async () => {
  backend = new CountingBackend({ seed: 7 });
  service = await startTestService({}, backend);
  const budget = mkdtempSync(join(tmpdir(), "rj-plan-budget-"));
  dirs.push(budget);
  client = clientOf(service, budget);
  await configure(ROUTER_A, officeVlans);
  await configure(ROUTER_A2, homeRouter);
});

afterAll(async () => {
  await client?.close();
  await service?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("routerjobs plan on twins of live routers", () => {
  it("shows per router what the jobs would change, reading each router once and running nothing", async () => {
    const plan = await planOf((stack) => {
      new RouterConfig(stack, "office", {
        routerId: ROUTER_A,
        sections: [
          { name: "dns", script: "/ip dns set servers=9.9.9.9" },
          { name: "vlan40", script: "/interface vlan add interface=br-core name=vlan40-iot vlan-id=40" },
        ],
      });
      new RouterConfig(stack, "home", {
        routerId: ROUTER_A2,
        sections: [{ name: "identity", script: "/system identity set name=home-gw-2" }],
      });
    });
    // One /export per router, no script run, no job submitted: plan is read-only.
    expect(backend.commands.sort()).toEqual([`${ROUTER_A} /export`, `${ROUTER_A2} /export`].sort());
    expect(backend.scripts).toEqual([]);
    expect(await service.jobs(ROUTER_A)).toEqual([]);
    const office = plan.routers.find((router) => router.router_id === ROUTER_A);
    expect(office?.jobs).toEqual(["office/office/dns", "office/office/vlan40"]);
    expect(office?.diff).toContainEqual(
      expect.objectContaining({
        menu: "/interface vlan",
        added: ["add interface=br-core name=vlan40-iot vlan-id=40"],
      }),
    );
    expect(office?.diff.find((diff) => diff.menu === "/ip dns")?.changed[0]?.after).toContain(
      "servers=9.9.9.9",
    );
    expect(plan.routers.find((router) => router.router_id === ROUTER_A2)?.diff).toEqual([
      expect.objectContaining({
        menu: "/system identity",
        changed: [expect.objectContaining({ after: "set name=home-gw-2" })],
      }),
    ]);
    expect(plan).toMatchObject({ changed: 2, failed: 0 });
  });

  it("runs a script whose effect depends on the live state ([find where ...]) against that state", async () => {
    // The office has vlan10..vlan99 on br-core: the script touches exactly those, which only the live state knows.
    const script = '/interface vlan set [find where interface="br-core" and vlan-id>20] mtu=1400';
    const plan = await planOf((stack) => {
      new RouterConfig(stack, "office", { routerId: ROUTER_A, sections: [{ name: "mtu", script }] });
    });
    const changed = plan.routers[0]?.diff[0]?.changed.map((line) => line.after);
    expect(changed).toEqual([
      expect.stringContaining("name=vlan30-voip"),
      expect.stringContaining("name=vlan99-mgmt"),
    ]);
    expect(changed?.every((line) => line.includes("mtu=1400"))).toBe(true);
  });

  it("reports a script that would fail on the twin with the router's error and line, and skips what follows", async () => {
    const plan = await planOf((stack) => {
      new RouterConfig(stack, "office", {
        routerId: ROUTER_A,
        sections: [
          // The office already has this VLAN: a plain add fails, as it would on the router.
          {
            name: "dup",
            script:
              "/ip dns set allow-remote-requests=yes\n/interface vlan add interface=br-core name=vlan10-staff vlan-id=10",
          },
          { name: "after", script: "/system identity set name=never" },
        ],
      });
    });
    expect(plan.routers[0]).toMatchObject({
      failures: [{ resource: "office/office/dup", error: expect.stringMatching(/already have/), line: 2 }],
      skipped: ["office/office/after"],
    });
    expect(plan.failed).toBe(1);
    const [failure] = planText(plan).filter((line) => line.includes("would fail"));
    expect(failure?.match(/\(line \d+/g)).toHaveLength(1);
  });

  it("names a router the token cannot see, and still plans the others", async () => {
    const plan = await planOf((stack) => {
      new RouterConfig(stack, "other", {
        routerId: ROUTER_B,
        sections: [{ name: "dns", script: "/ip dns set servers=1.1.1.1" }],
      });
      new RouterConfig(stack, "home", {
        routerId: ROUTER_A2,
        sections: [{ name: "noop", script: "/ip dns set servers=1.1.1.1" }],
      });
    });
    const byId = (id: string) => plan.routers.find((router) => router.router_id === id);
    expect(byId(ROUTER_B)?.error).toMatch(new RegExp(ROUTER_B));
    expect(byId(ROUTER_A2)).toMatchObject({ failures: [] });
    expect(byId(ROUTER_A2)?.error).toBeUndefined();
    expect(plan.failed).toBe(1);
  });

  it("without --all, a job whose key is in the state does not run (and costs no read)", async () => {
    const dir = synthStack((stack) => {
      new RouterConfig(stack, "office", {
        routerId: ROUTER_A,
        sections: [{ name: "dns", script: "/ip dns set servers=9.9.9.9" }],
      });
    });
    const jobs = await readStackJobs(await stackFile(dir));
    backend.reset();
    const plan = await planStack({
      jobs,
      appliedKeys: new Set(jobs.map((entry) => entry.job.job_key)),
      readConfig: (id) => readLiveConfig(client, id),
    });
    expect(plan.routers[0]).toMatchObject({ jobs: [], diff: [] });
    expect(backend.commands).toEqual([]);
  });
});

describe("routerjobs import", () => {
  it.each([
    ["an office with VLANs", ROUTER_A, ["vlan", "interfaceListMember", "dhcpServer", "addressList"]],
    ["a home router", ROUTER_A2, ["interfaceList", "ipPool", "dnsServers", "identity"]],
  ])("round trip on %s: import -> synth -> plan --all shows no change", async (_name, routerId, calls) => {
    const module = importModule(await readLiveConfig(client, routerId), {
      routerId,
      constructsModule: new URL("../../../src/deploy/constructs/index.ts", import.meta.url).pathname,
    });
    // Typed helpers where one does what the guarded line does, so the round trip covers both kinds of line.
    for (const helper of calls) expect(module).toContain(`helpers.${helper}(`);
    expect(module).toMatch(/^\s+":if \(\[:len \[/m);
    const dir = mkdtempSync(join(tmpdir(), "rj-import-"));
    dirs.push(dir);
    const file = join(dir, "imported.ts");
    writeFileSync(file, module);
    const { importedRouter } = (await import(file)) as {
      importedRouter: (scope: import("constructs").Construct, id?: string) => RouterConfig;
    };
    const plan = await planOf((stack) => importedRouter(stack, "edge"));
    expect(plan.routers[0]?.jobs.length).toBeGreaterThan(5);
    expect(plan.routers[0]?.failures).toEqual([]);
    expect(plan.routers[0]?.diff).toEqual([]);
    expect(plan).toMatchObject({ changed: 0, failed: 0 });
  });
});
