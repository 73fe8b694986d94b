/**
 * The demo's `--router-processes`: each router a `routerjobs router simulate` process (the built CLI) that the
 * service drives over the RouterOS API with TLS pinned by fingerprint, as it drives a MikroTik device.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterJobsClient } from "../../src/client/client.js";
import { ApiError } from "../../src/client/errors.js";
import { type LocalStack, startLocalStack } from "../../src/demo/local-stack.js";
import { type RouterProcesses, startRouterProcesses } from "../../src/demo/router-processes.js";
import { waitFor } from "../helpers/wait-for.js";

const BRANCH_A = { id: "0b9c6c52-5a0e-4d4b-9f43-1a2b3c4d5e01", name: "branch-a" };
const BRANCH_B = { id: "0b9c6c52-5a0e-4d4b-9f43-1a2b3c4d5e02", name: "branch-b" };
const ROUTERS = [BRANCH_A, BRANCH_B];

describe("the demo's routers as RouterOS API processes", () => {
  let dir: string;
  let devices: RouterProcesses;
  let stack: LocalStack;
  let client: RouterJobsClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "routerjobs-router-processes-"));
    devices = await startRouterProcesses(dir, ROUTERS);
    stack = await startLocalStack({
      dir,
      routers: ROUTERS.map((router) => ({ ...router, device: devices.devices.get(router.id) })),
      receiver: false,
      rateLimit: { count: 10_000, windowMs: 60_000 },
    });
    client = new RouterJobsClient({
      baseUrl: stack.service.url,
      token: stack.token,
      ...(stack.service.ca ? { ca: stack.service.ca } : {}),
      budgetDir: join(dir, "budget"),
    });
  });

  afterAll(async () => {
    await client?.close();
    await stack?.close();
    await devices?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("answers a synchronous call from the device process, which carries the router's name", async () => {
    const [identity] = await client.execute(BRANCH_A.id, "/system/identity/print");
    expect(identity?.name).toBe("branch-a");
  });

  it("runs a job with a backup on the device, and the backup is a file on the device", async () => {
    const { ack } = await client.submitJob(BRANCH_B.id, {
      script: "/ip address add address=10.9.0.1/24 interface=ether2",
      description: "address",
      make_backup: true,
      express_execute: true,
      needs_acknowledgement: true,
    });
    const job = await waitUntilTerminal(client, BRANCH_B.id, ack.idempotency_key);
    expect(job.status).toBe("completed");
    const addresses = await client.execute(BRANCH_B.id, "/ip/address/print");
    expect(addresses.map((address) => address.address)).toContain("10.9.0.1/24");
    const files = await client.execute(BRANCH_B.id, "/file/print");
    // The device back end names a job's backup after its seq_id (src/service/scheduling/router-cycle.ts).
    expect(files.map((file) => file.name)).toContain(`routerjobs-job-${job.seq_id}.rsc`);
  });

  it("keeps each password in a 0600 file, on no command line", async () => {
    for (const router of ROUTERS) {
      const file = join(dir, "routers", `${router.name}.password`);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const password = await readFile(file, "utf8");
      expect(devices.devices.get(router.id)?.password).toBe(password);
      expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain(password);
    }
  });

  it("close stops every device: the service then answers 502 router_unreachable", async () => {
    await devices.close();
    const failure = await client.execute(BRANCH_A.id, "/system/identity/print").catch((error) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ statusCode: 502, apiCode: "router_unreachable" });
  });
});

function waitUntilTerminal(client: RouterJobsClient, routerId: string, key: string) {
  let last: unknown;
  return waitFor(
    async () => {
      const job = (await client.listJobs(routerId)).find((item) => item.idempotency_key === key);
      last = job;
      return job && ["completed", "failed", "deleted"].includes(job.status) ? job : undefined;
    },
    { what: `job ${key} to end`, timeoutMs: 60_000, intervalMs: 50, detail: () => JSON.stringify(last) },
  );
}
