/** `routerjobs plan`'s reachability check as a user runs it: the built CLI against a real service. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterConfig } from "../../src/deploy/constructs/index.js";
import { CountingBackend, officeVlans, synthStack } from "../deploy/plan/fixtures.js";
import { runCli } from "../helpers/cli.js";
import { ROUTER_A, startTestService, type TestService, TOKEN_A } from "../service/harness.js";

let service: TestService;
let env: Record<string, string>;
const dirs: string[] = [];

function stack(script: string): string {
  return synthStack((scope) => {
    new RouterConfig(scope, "office", { routerId: ROUTER_A, sections: [{ name: "firewall", script }] });
  });
}

const PATH_FLAGS = ["--service-address", "10.10.99.5", "--router-address", `edge-a=10.10.99.1:8729`];

beforeAll(async () => {
  service = await startTestService({}, new CountingBackend({ seed: 7 }));
  const home = mkdtempSync(join(tmpdir(), "rj-plan-reach-"));
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

describe("routerjobs plan: a change that would cut the service off", () => {
  it("exits 1 and names the setting; --json carries it; --reach off plans the change alone (exit 2)", async () => {
    // GIVEN a job that moves the API-SSL port the service connects to
    const dir = stack("/ip service set api-ssl port=8730");
    // WHEN it is planned with the service's path (the router given by name)
    const result = await runCli(["plan", dir, ...PATH_FLAGS], { env });
    // THEN plan exits 1 and says what cuts the service off
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain(
      `! this change would cut the service off from edge-a (${ROUTER_A}): /ip service api-ssl listens on tcp/8730, not tcp/8729`,
    );
    expect(result.stderr).toMatch(/1 router\(s\) the change would cut the service off from/);
    const json = await runCli(["plan", dir, "--json", ...PATH_FLAGS], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      cut_off: 1,
      routers: [
        { reachability: { status: "cut", reason: "/ip service api-ssl listens on tcp/8730, not tcp/8729" } },
      ],
    });
    const off = await runCli(["plan", dir, "--reach", "off"], { env });
    expect(off.code, off.stderr).toBe(2);
  });

  it("refuses a bad path flag with the flag named (exit 1, as every plan error)", async () => {
    const result = await runCli(
      ["plan", stack("/ip dns set servers=9.9.9.9"), "--service-address", "10.0.0"],
      {
        env,
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /--service-address must be an IPv4 address such as 10\.0\.0\.5 \(got "10\.0\.0"\)/,
    );
    const mode = await runCli(["plan", stack("/ip dns set servers=9.9.9.9")], {
      env: { ...env, ROUTERJOBS_REACH: "sideways" },
    });
    expect(mode.stderr).toMatch(/ROUTERJOBS_REACH must be one of inbound, outbound, off \(got "sideways"\)/);
  });
});
