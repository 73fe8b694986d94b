/** `routerjobs verify`'s work: the check between two waves, against the service on loopback. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouterJobsClient } from "../../../src/client/client.js";
import { parseWaveCheck, type WaveCheck } from "../../../src/contract/wave-check.js";
import { verifyWave } from "../../../src/deploy/apply/verify.js";
import { ChangesNotAppliedError } from "../../../src/errors.js";
import type { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { clientOf, ROUTER_A, ROUTER_A2, startTestService, type TestService } from "../../service/harness.js";

const check = (script: string, wave = { wave: 1, waves: 3 }): WaveCheck => ({
  version: 1,
  resource: "office/fleet/rollout-wave-1",
  wave,
  routers: [
    { name: "edge-a", router_id: ROUTER_A },
    { name: "edge-a2", router_id: ROUTER_A2 },
  ],
  script,
  soak_ms: 0,
  timeout_ms: 10_000,
});

describe("verifyWave", () => {
  let service: TestService;
  let client: RouterJobsClient;
  let budget: string;
  const lines: string[] = [];
  const write = (line: string) => lines.push(line);
  const admitted = () => [...service.service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);

  beforeAll(async () => {
    service = await startTestService();
    budget = mkdtempSync(join(tmpdir(), "rj-verify-"));
    client = clientOf(service, budget);
  });
  afterAll(async () => {
    await client?.close();
    await service?.close();
    rmSync(budget, { recursive: true, force: true });
  });

  it("passes when the script passes on every router, one request per router, naming the wave", async () => {
    lines.length = 0;
    const before = admitted();
    const results = await verifyWave(check(":put [/system identity get name]"), { client, write });
    expect(results.map((result) => [result.name, result.passed, result.output]).sort()).toEqual([
      ["edge-a", true, "edge-a"],
      ["edge-a2", true, "edge-a2"],
    ]);
    expect(admitted() - before).toBe(2);
    expect(lines[0]).toMatch(/^routerjobs: office\/fleet\/rollout-wave-1: wave 1\/3: 2 of 2 routers done \(/);
    expect(lines.at(-1)).toMatch(/wave 1\/3: passed: wave 2 may start/);
  });

  it("fails naming each failed router and its output, and says the next wave does not start", async () => {
    lines.length = 0;
    const script = ':if ([/system identity get name] = "edge-a2") do={:error "edge-a2 is unhealthy"}';
    const failure = await verifyWave(check(script), { client, write }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ChangesNotAppliedError);
    expect((failure as Error).message).toMatch(
      /^office\/fleet\/rollout-wave-1: wave 1\/3: the check failed on 1 of 2 router\(s\) \(edge-a2: edge-a2 is unhealthy.*\); wave 2 is not started$/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/check passed on edge-a \(/));
    expect(lines).toContainEqual(
      expect.stringMatching(new RegExp(`check FAILED on edge-a2 \\(${ROUTER_A2}\\): edge-a2 is unhealthy`)),
    );
  });

  it("fails a router that cannot be reached: a lost management path must stop the rollout", async () => {
    const backend = service.backend as SimulatedBackend;
    backend.setOnline(ROUTER_A2, false);
    try {
      await expect(verifyWave(check("/ip address print"), { client, write })).rejects.toThrow(/edge-a2: /);
    } finally {
      backend.setOnline(ROUTER_A2, true);
    }
  });

  it("reads the check JSON the constructs write, and refuses a malformed one naming the field", () => {
    expect(parseWaveCheck(JSON.stringify(check("/ip address print")))).toMatchObject({ wave: { wave: 1 } });
    expect(() => parseWaveCheck(JSON.stringify({ ...check("x"), routers: [] }))).toThrow(
      /ROUTERJOBS_VERIFY is not a valid wave check: routers: /,
    );
    expect(() => parseWaveCheck("{")).toThrow(/ROUTERJOBS_VERIFY is not valid JSON/);
  });
});
