/** `routerjobs plan` and `routerjobs import` as a user runs them: the built CLI against a real service. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterConfig } from "../../src/deploy/constructs/index.js";
import { CountingBackend, officeVlans, synthStack } from "../deploy/plan/fixtures.js";
import { runCli } from "../helpers/cli.js";
import { ROUTER_A, ROUTER_B, startTestService, type TestService, TOKEN_A } from "../service/harness.js";

let service: TestService;
let env: Record<string, string>;
const dirs: string[] = [];

function stack(script: string, routerId = ROUTER_A): string {
  return synthStack((scope) => {
    new RouterConfig(scope, "office", { routerId, sections: [{ name: "dns", script }] });
  });
}

beforeAll(async () => {
  service = await startTestService({}, new CountingBackend({ seed: 7 }));
  const home = mkdtempSync(join(tmpdir(), "rj-plan-cli-"));
  dirs.push(home);
  writeFileSync(join(home, "ca.pem"), service.service.ca ?? "");
  env = {
    ROUTERJOBS_URL: service.url,
    ROUTERJOBS_TOKEN: TOKEN_A,
    ROUTERJOBS_CA_FILE: join(home, "ca.pem"),
    ROUTERJOBS_STATE_DIR: join(home, "state"),
  };
  const answer = await service.call("POST", `/api/synchronous/${ROUTER_A}`, {
    body: { command: "/execute", parameters: `=script=${officeVlans}` },
  });
  expect(answer.status).toBe(200);
});

afterAll(async () => {
  await service?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("routerjobs plan (exit codes as terraform plan -detailed-exitcode)", () => {
  it("exits 2 and prints the diff by menu when a router would change", async () => {
    const result = await runCli(["plan", stack("/ip dns set servers=9.9.9.9")], { env });
    expect(result.stderr).toMatch(/1 router\(s\) would change/);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(`router ${ROUTER_A}: 1 job(s) would run: office/office/dns`);
    expect(result.stdout).toMatch(/ {2}\/ip dns\n {4}~ set .*\n {6}set .*servers=9\.9\.9\.9/);
  });

  it("exits 0 when every job is in the state, and --json says why", async () => {
    const dir = stack("/ip dns set servers=9.9.9.9");
    writeFileSync(join(dir, "terraform.office.tfstate"), JSON.stringify(stateApplying(dir)));
    const result = await runCli(["plan", dir, "--json"], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      changed: 0,
      failed: 0,
      routers: [{ jobs: [], changes: [] }],
    });
    // --all ignores the state: the declared DNS servers differ from the live ones, so the router has drifted.
    expect((await runCli(["plan", dir, "--all", "--json"], { env })).code).toBe(2);
  });

  it("finds the state where the stack's local backend puts it (cdktf: the app's folder, not the stack's)", async () => {
    const dir = stack("/ip dns set servers=9.9.9.9");
    const app = mkdtempSync(join(tmpdir(), "rj-plan-app-"));
    dirs.push(app);
    const stateFile = join(app, "terraform.office.tfstate");
    const stackFile = join(dir, "cdk.tf.json");
    const synthesized = JSON.parse(readFileSync(stackFile, "utf8"));
    synthesized.terraform = { ...synthesized.terraform, backend: { local: { path: stateFile } } };
    writeFileSync(stackFile, JSON.stringify(synthesized));
    writeFileSync(stateFile, JSON.stringify(stateApplying(dir)));
    const result = await runCli(["plan", dir, "--json"], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ changed: 0, routers: [{ jobs: [] }] });
  });

  it("exits 1 with the router's error and line for a script that would fail", async () => {
    const result = await runCli(
      ["plan", stack("/ip dns set servers=1.1.1.1\n/ip address add address=nonsense interface=ether1")],
      { env },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/! office\/office\/dns would fail: .+ \(line 2 column \d+\)$/m);
  });

  it("exits 1 with a clear error for a router the token cannot see, and for a missing stack", async () => {
    const unseen = await runCli(["plan", stack("/ip dns set servers=1.1.1.1", ROUTER_B)], { env });
    expect(unseen.code).toBe(1);
    expect(unseen.stdout).toContain(`router ${ROUTER_B}: error:`);
    const missing = await runCli(["plan", "/nonexistent/stack"], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^routerjobs: plan: \/nonexistent\/stack does not exist/);
    expect(missing.stderr).not.toMatch(/ at /);
  });
});

describe("routerjobs import", () => {
  it("writes a module with a RouterConfig and a section per menu", async () => {
    const out = join(dirs[0] as string, "edge.ts");
    const result = await runCli(["import", ROUTER_A, "--out", out], { env });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const module = readFileSync(out, "utf8");
    expect(module).toContain('import { helpers, RouterConfig } from "routerjobs/constructs"');
    expect(module).toContain('name: "interface-vlan"');
    // A vlan has a typed helper, which import writes where it does what the raw guarded line does.
    expect(module).toMatch(/helpers\.vlan\(\{[^)]*name: "vlan10-staff"/);
    // A router by name, as `routerjobs routers` lists it; a name no router has is refused with the candidates.
    const byName = await runCli(["import", "edge-a"], { env });
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stdout).toBe(module);
    expect((await runCli(["import", "not-a-router"], { env })).stderr).toMatch(
      /^routerjobs: no router named "not-a-router"; the token's routers: edge-a \(/,
    );
  });
});

/** A local state (format 4) in which the stack's one job resource is applied. */
function stateApplying(dir: string): unknown {
  const resources = JSON.parse(readFileSync(join(dir, "cdk.tf.json"), "utf8")).resource.terraform_data;
  const key = JSON.parse(resources[Object.keys(resources)[0] as string].input.routerjobs);
  return {
    version: 4,
    resources: [
      {
        mode: "managed",
        type: "terraform_data",
        instances: [
          { attributes: { id: "x", input: { value: { routerjobs: JSON.stringify(key) }, type: "dynamic" } } },
        ],
      },
    ],
  };
}
