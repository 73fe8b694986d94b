/**
 * `routerjobs routers` lists the routers the token can see (our service's `GET /api/routers`), and a command
 * that takes a router takes its name or its UUID in any case, refusing a name that is ambiguous or unknown
 * with the candidates.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { scratchDir } from "../helpers/scratch.js";
import {
  ROUTER_A,
  ROUTER_A2,
  ROUTER_B,
  startTestService,
  TEAM_A,
  type TestService,
  TOKEN_A,
  writeServiceCa,
} from "../service/harness.js";

const SECRET = TOKEN_A.split(":")[2] as string;
const TWIN_1 = "a7000000-0000-4000-8000-000000000001";
const TWIN_2 = "a7000000-0000-4000-8000-000000000002";

describe("routerjobs routers, and routers by name", () => {
  let service: TestService;
  let env: Record<string, string>;

  beforeAll(async () => {
    const scratch = scratchDir("rj-routers-");
    service = await startTestService({ rateLimit: { count: 10_000, windowMs: 1000 }, tickMs: 3_600_000 });
    // Two routers of team A share a name: a name is no key.
    for (const id of [TWIN_1, TWIN_2])
      await service.service.app.db.query("INSERT INTO routers (id, team_id, name) VALUES ($1, $2, 'twin')", [
        id,
        TEAM_A,
      ]);
    env = {
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: writeServiceCa(service, scratch),
      ROUTERJOBS_STATE_DIR: join(scratch, "state"),
      ROUTERJOBS_RATE_LIMIT: "10000/1s",
    };
  });
  afterAll(async () => service?.close());

  const cli = (...args: string[]) => runCli(args, { env });

  it("lists the token's routers by name, and no other team's", async () => {
    const result = await cli("routers");
    expect(result.code, result.stderr).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split("\n");
    expect(header?.split(/\s+/)).toEqual(["ID", "NAME", "ONLINE"]);
    expect(rows.map((row) => row.split(/\s+/))).toEqual([
      [ROUTER_A, "edge-a", "yes"],
      [ROUTER_A2, "edge-a2", "yes"],
      [TWIN_1, "twin", "yes"],
      [TWIN_2, "twin", "yes"],
    ]);
    expect(result.stdout).not.toContain(ROUTER_B);
    const json = JSON.parse((await cli("routers", "--json")).stdout);
    expect(json[0]).toEqual({ id: ROUTER_A, name: "edge-a", online: true });
  });

  it("takes a router's name, in any case where only one router has it", async () => {
    await service.submit(ROUTER_A2, {
      description: "by name",
      script: "/system identity set name=x",
      make_backup: false,
      express_execute: false,
      needs_acknowledgement: true,
    });
    for (const name of ["edge-a2", "EDGE-A2"]) {
      const result = await cli("jobs", name, "--json");
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).map((job: { description: string }) => job.description)).toContain(
        "by name",
      );
    }
  });

  it("takes a UUID in any case", async () => {
    const result = await cli("jobs", ROUTER_A2.toUpperCase(), "--json");
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).length).toBeGreaterThan(0);
  });

  it("refuses a name two routers share, listing both", async () => {
    expectOneErrorLine(
      await cli("jobs", "twin"),
      2,
      `routerjobs: router "twin" is ambiguous: 2 routers have that name (twin (${TWIN_1}), twin (${TWIN_2})); give its UUID`,
      [SECRET],
    );
  });

  it("refuses a name no router has, listing the token's routers", async () => {
    expectOneErrorLine(
      await cli("submit", "office-1", "--script-file", "-"),
      2,
      `routerjobs: no router named "office-1"; the token's routers: edge-a (${ROUTER_A}), edge-a2 (${ROUTER_A2}), twin (${TWIN_1}), twin (${TWIN_2})`,
      [SECRET],
    );
  });

  it("says that the sites API lists no routers, for a name and for the list", async () => {
    expectOneErrorLine(
      await runCli(["jobs", "edge-a", "--api", "sdx"], { env }),
      2,
      /^routerjobs: router must be a UUID \(got "edge-a"\): this service lists no routers/,
      [SECRET],
    );
    expectOneErrorLine(await cli("routers", "--api", "sdx"), 2, /this service lists no routers/, [SECRET]);
  });
});
