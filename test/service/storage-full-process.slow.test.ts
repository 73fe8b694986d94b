/**
 * `routerjobs service` as a process on a disk that fills up: the red team's service hung for good once the WAL
 * could not be written, and ignored SIGTERM for over a minute. Here the process answers 503 while the disk is
 * full, exits on SIGTERM as it does on a disk with space, and a restart once space is back lists every job it
 * acknowledged. The disk is a real tmpfs, filled for real; which write finds it full first (the WAL or a data
 * file) is the store's affair, and storage-full.test.ts forces the WAL's case in a service in the test's process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliProcess, startCli } from "../helpers/cli.js";
import { mountSmallDisk, type SmallDisk, smallDiskAvailability } from "../helpers/small-disk.js";
import { ROUTER_A, TEAM_A, TOKEN_A } from "./harness.js";

const disk = smallDiskAvailability();
/** A submission that writes a few kB to the store, so that the disk's last megabytes go in a few hundred. */
const BIG_SCRIPT = `/log info "${"x".repeat(1800)}"`;

describe.skipIf(!disk.available)("routerjobs service on a disk that fills up", () => {
  let dir: string;
  let small: SmallDisk;
  let service: CliProcess | undefined;
  let url = "";

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "routerjobs-full-disk-"));
    small = mountSmallDisk(96);
    writeFileSync(
      join(dir, "seed.json"),
      JSON.stringify({
        teams: [{ id: TEAM_A, tokens: [TOKEN_A], routers: [{ id: ROUTER_A, name: "edge" }] }],
      }),
    );
  });
  afterAll(async () => {
    if (service?.child.exitCode === null) service.child.kill("SIGKILL");
    await service?.exited;
    small?.free();
    small?.unmount();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async () => {
    service = startCli([
      "service",
      "--listen",
      "127.0.0.1:0",
      "--data",
      join(small.path, "data"),
      "--seed",
      join(dir, "seed.json"),
      // The scheduler would run the jobs (and write) behind the test's back.
      "--tick",
      "1h",
      "--rate-limit",
      "100000/1m",
      "--no-portal",
    ]);
    url = await service.printed(/listening on (\S+)/, "the service");
  };
  const submit = async (description: string) => {
    const response = await request(`${url}/api/asynchronous/${ROUTER_A}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN_A}`, "content-type": "application/json" },
      body: JSON.stringify({ description, script: BIG_SCRIPT }),
    });
    await response.body.text();
    return { status: response.statusCode, retryAfter: response.headers["retry-after"] };
  };

  it("answers 503 while full, exits 0 on SIGTERM, and after a restart lists every job it acknowledged", async () => {
    await start();
    const acknowledged: string[] = [];
    small.fill();
    // WHEN submissions go on until the store refuses one for lack of space
    let refused: Awaited<ReturnType<typeof submit>> | undefined;
    for (let n = 0; n < 5_000 && refused === undefined; n++) {
      const answer = await submit(`job ${n}`);
      if (answer.status === 202) acknowledged.push(`job ${n}`);
      else refused = answer;
    }
    // THEN the refusal is a 503 with Retry-After, and the service still answers
    expect(refused).toMatchObject({ status: 503, retryAfter: "30" });
    const health = await request(`${url}/healthz`);
    await health.body.text();
    expect(health.statusCode).toBe(503);

    // WHEN it is stopped while the disk is still full
    service?.child.kill("SIGTERM");
    // THEN it exits as it does on a disk with space: 0, not hung
    expect(await service?.exited, service?.output().stderr).toBe(0);

    // WHEN space is back and it starts again
    small.free();
    await start();
    // THEN every acknowledged job is listed, each once
    const response = await request(`${url}/api/routers/${ROUTER_A}/jobs`, {
      headers: { authorization: `Bearer ${TOKEN_A}` },
    });
    const listed = ((await response.body.json()) as { data: { description: string }[] }).data.map(
      (job) => job.description,
    );
    expect(listed.filter((description) => acknowledged.includes(description)).sort()).toEqual(
      [...acknowledged].sort(),
    );
    service?.child.kill("SIGTERM");
    expect(await service?.exited).toBe(0);
  });
});
