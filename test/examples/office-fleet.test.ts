/** examples/office-fleet: per-router chains, the one-router change of `variant: "changed"`, and its entry. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TerraformStack, Testing } from "cdktf";
import { describe, expect, it } from "vitest";
import {
  buildOfficeFleet,
  CHANGED,
  type OfficeFleetOptions,
  type OfficeRouter,
} from "../../examples/office-fleet/fleet.js";
import { ConstructValidationError, parseApplyJob } from "../../src/deploy/constructs/index.js";
import { SimulatedRouter } from "../../src/routeros/simulator/router.js";
import { provisioners } from "../deploy/constructs/support.js";
import { testingApp } from "../helpers/scratch.js";
import { jobsByPath, ROOT, runApp, stackJson, TOKEN } from "./support.js";

const SECTIONS = [
  "identity",
  "interfaces",
  "addresses",
  "dhcp",
  "address-lists",
  "firewall-input",
  "firewall-forward",
];

const ROUTERS: OfficeRouter[] = [1, 2, 3, 4, 5].map((n) => ({
  id: `00000000-0000-4000-8000-00000000000${n}`,
  name: `office-${n}`,
  site: `site-${n}`,
  lanPrefix: `10.${n}.0`,
}));

function synthesize(options: Partial<OfficeFleetOptions> = {}) {
  const stack = new TerraformStack(testingApp(Testing), "office-fleet");
  const fleet = buildOfficeFleet(stack, { routers: ROUTERS, ...options });
  return { text: Testing.synth(stack), fleet };
}

describe("examples/office-fleet", () => {
  it("declares the same seven sections for each of the five routers", () => {
    const jobs = jobsByPath(synthesize().text);
    expect(jobs.size).toBe(35);
    for (const router of ROUTERS) {
      for (const section of SECTIONS) expect(jobs.has(`offices/${router.name}/${section}`)).toBe(true);
    }
  });

  it("chains each router's jobs in section order and lets routers run in parallel", () => {
    const jobs = jobsByPath(synthesize().text);
    for (const router of ROUTERS) {
      const names = SECTIONS.map((section) => jobs.get(`offices/${router.name}/${section}`)?.name);
      SECTIONS.forEach((section, index) => {
        const dependsOn = jobs.get(`offices/${router.name}/${section}`)?.resource.depends_on;
        // The first section waits for nothing, so no router waits for another.
        expect(dependsOn).toEqual(index === 0 ? undefined : [`terraform_data.${names[index - 1]}`]);
      });
    }
  });

  it("fills in each router's own values and passes the fleet options to every job", () => {
    const { text } = synthesize({ cli: "npx routerjobs", waitFor: "receiver", expressExecute: true });
    for (const [path, { resource }] of jobsByPath(text)) {
      const [exec] = provisioners(resource);
      expect(exec?.command).toBe("npx routerjobs apply");
      const job = parseApplyJob(exec?.environment.ROUTERJOBS_JOB ?? "");
      const router = ROUTERS.find((candidate) => path.startsWith(`offices/${candidate.name}/`));
      expect(job).toMatchObject({ router_id: router?.id, wait_for: "receiver", express_execute: true });
      expect(job.script.length).toBeLessThanOrEqual(2000);
      if (path.endsWith("/dhcp")) expect(job.script).toContain(`domain=${router?.site}.office.lan`);
      if (path.endsWith("/addresses")) expect(job.script).toContain(`address=${router?.lanPrefix}.1/24`);
    }
  });

  it('variant "changed" replaces exactly one job: the first router\'s input firewall', () => {
    // GIVEN the fleet as first deployed and as changed
    const before = jobsByPath(synthesize().text);
    const after = jobsByPath(synthesize({ variant: "changed" }).text);
    // WHEN the replacement triggers are compared resource by resource
    expect([...after.keys()]).toEqual([...before.keys()]);
    const changed = [...after].filter(
      ([path, { resource }]) =>
        JSON.stringify(resource.triggers_replace) !==
        JSON.stringify(before.get(path)?.resource.triggers_replace),
    );
    // THEN only one resource gets a new job key, so a redeploy re-runs that job alone
    expect(changed.map(([path]) => path)).toEqual([
      `offices/${ROUTERS[CHANGED.routerIndex]?.name}/${CHANGED.section}`,
    ]);
    // AND the Terraform names stay put, so nothing else is destroyed and created
    expect([...after.values()].map((job) => job.name)).toEqual([...before.values()].map((job) => job.name));
  });

  it("synthesizes the same keys twice (nothing run-dependent in a job)", () => {
    expect(synthesize().text).toBe(synthesize().text);
  });

  it("converges five fresh routers, initial then changed, and every script runs again cleanly", async () => {
    const initial = synthesize().fleet;
    const changed = synthesize({ variant: "changed" }).fleet;
    for (const router of ROUTERS) {
      const device = new SimulatedRouter({ name: "MikroTik", seedText: router.name });
      for (const config of [initial, initial, changed]) {
        for (const section of config.configs.get(router.name)?.sections ?? []) {
          const outcome = await device.runScript(section.job.script);
          expect(outcome, `${router.name}/${section.node.id}`).toMatchObject({ ok: true });
        }
      }
      const exported = (await device.runScript("/export")).output;
      expect(exported).toContain(`add address=${router.lanPrefix}.1/24`);
      expect(exported.match(/add .*chain=input/g)).toHaveLength(router === ROUTERS[0] ? 5 : 4);
    }
  });

  it("refuses a malformed lanPrefix, naming the router and the field", () => {
    const routers = [{ ...ROUTERS[0], lanPrefix: "10.1.0.0/24" } as OfficeRouter];
    const stack = new TerraformStack(testingApp(Testing), "office-fleet");
    expect(() => buildOfficeFleet(stack, { routers })).toThrow(
      'router office-1: lanPrefix must be three octets such as "192.168.10" (got "10.1.0.0/24")',
    );
  });

  it("refuses a router listed twice (the constructs' rule)", () => {
    const routers = [ROUTERS[0], { ...ROUTERS[0], name: "office-1b" }] as OfficeRouter[];
    const stack = new TerraformStack(testingApp(Testing), "office-fleet");
    expect(() => buildOfficeFleet(stack, { routers })).toThrow(ConstructValidationError);
  });

  it("main.ts reads the routers from ROUTERJOBS_FLEET and FLEET_VARIANT, without the token", () => {
    const run = runApp("examples/office-fleet/main.ts", {
      ROUTERJOBS_FLEET: JSON.stringify(ROUTERS),
      FLEET_VARIANT: "changed",
      ROUTERJOBS_TOKEN: TOKEN,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const text = stackJson(run.outdir, "office-fleet");
    expect(text).not.toContain(TOKEN);
    const jobs = jobsByPath(text);
    expect(jobs.size).toBe(35);
    expect(
      jobs.get("offices/office-1/firewall-input")?.resource.provisioner?.[0]?.["local-exec"].environment
        .ROUTERJOBS_JOB,
    ).toContain("winbox");
  });

  it("main.ts falls back to routers.json next to it, run as the repository's cdktf.json says", () => {
    // `cdktf synth` at the top of the checkout runs cdktf.json's app: this example.
    const app = (JSON.parse(readFileSync(join(ROOT, "cdktf.json"), "utf8")) as { app: string }).app;
    expect(app).toMatch(/^npx tsx \S+$/);
    const run = runApp(app.replace("npx tsx ", ""), {});
    expect(run.status).toBe(0);
    expect(jobsByPath(stackJson(run.outdir, "office-fleet")).size).toBe(35);
  });

  it("main.ts refuses a fleet that is not a JSON array, or a router without a field", () => {
    const notArray = runApp("examples/office-fleet/main.ts", { ROUTERJOBS_FLEET: '{"id":"x"}' });
    expect(notArray.status).not.toBe(0);
    expect(notArray.stderr).toContain("the fleet must be a JSON array of routers");
    const { lanPrefix: _, ...withoutLan } = ROUTERS[1] as OfficeRouter;
    const missing = runApp("examples/office-fleet/main.ts", {
      ROUTERJOBS_FLEET: JSON.stringify([ROUTERS[0], withoutLan]),
    });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("router 1: lanPrefix must be a string");
  });
});
