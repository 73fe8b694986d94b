import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { type Database, openDatabase } from "../../src/service/database/database.js";
import type { JobRow } from "../../src/service/jobs/rows.js";
import { shutdownError } from "../../src/service/scheduling/scheduler.js";
import { type CliProcess, runCli, startCli } from "../helpers/cli.js";
import { within } from "../helpers/wait-for.js";
import {
  eventually,
  type Loose,
  ROUTER_A,
  savedIdentity,
  startTestService,
  TEAM_A,
  TOKEN_A,
} from "./harness.js";

/** Nothing listens there: notifications stay in the outbox, where the tests read them. */
const HOOK = "https://127.0.0.1:9/hook";

/** Opens a stopped service's PGlite directory (its lock must have been released) and reads from it. */
async function inDatabase<T>(location: string, read: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ location });
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

async function jobByDescription(db: Database, description: string) {
  const { rows } = await db.query<JobRow>("SELECT * FROM jobs WHERE description = $1", [description]);
  const job = rows[0] as JobRow;
  const outbox = await db.query<{ status: string }>(
    "SELECT payload->>'status' AS status FROM outbox WHERE job_id = $1 ORDER BY seq",
    [job.id],
  );
  return { job, announced: outbox.rows.map((row) => row.status) };
}

describe("graceful shutdown: scripts in flight and the grace period", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "routerjobs-shutdown-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Each command of the simulated router takes 300 ms: a two-command script is in flight for 600 ms.
  const start = (shutdownGraceMs: number, commandLatencyMs = 300) =>
    startTestService(
      { database: join(dir, "pglite"), shutdownGraceMs },
      new SimulatedBackend({ seed: 7, commandLatencyMs }),
    );

  it("within the grace period the running job completes, and its notifications are in the outbox", async () => {
    const svc = await start(10_000);
    try {
      await svc.submit(ROUTER_A, {
        description: "in flight",
        script: "/system identity set name=one; /system identity set name=two",
        express_execute: true,
        notify_url: HOOK,
      });
      await eventually(async () =>
        (await svc.jobs(ROUTER_A)).some((job) => job.status === "running") ? true : undefined,
      );
    } finally {
      await svc.close();
    }
    await inDatabase(join(dir, "pglite"), async (db) => {
      const { job, announced } = await jobByDescription(db, "in flight");
      expect(job).toMatchObject({ status: "completed", execution: "done", error: null });
      expect(announced).toEqual(["loaded", "running", "completed"]);
      expect(await savedIdentity(db, ROUTER_A)).toBe("two");
    });
  });

  it("beyond it the job fails with a clear error, what ran is kept, and the queue runs at the next start", async () => {
    const svc = await start(300, 0);
    try {
      await svc.submit(ROUTER_A, {
        description: "too slow",
        script: "/system identity set name=partial; :delay 20s; /system identity set name=never",
        express_execute: true,
        notify_url: HOOK,
      });
      await eventually(async () =>
        (await svc.jobs(ROUTER_A)).some((job) => job.status === "running") ? true : undefined,
      );
      await svc.submit(ROUTER_A, { description: "queued", script: ":put later", notify_url: HOOK });
    } finally {
      // The 20 s script does not hold the close: the job fails at the grace period with what ran kept (below).
      await within(svc.close(), {
        what: "the service to close at its 300 ms grace period",
        timeoutMs: 15_000,
      });
    }
    await inDatabase(join(dir, "pglite"), async (db) => {
      const slow = await jobByDescription(db, "too slow");
      expect(slow.job).toMatchObject({ status: "failed", execution: "done", error: shutdownError(300) });
      expect(slow.job.error).toBe(
        "interrupted by service shutdown: the script was still running after the 300ms shutdown grace period",
      );
      expect(slow.announced).toEqual(["loaded", "running", "failed"]);
      expect(await savedIdentity(db, ROUTER_A)).toBe("partial");
      const queued = await jobByDescription(db, "queued");
      expect(queued.job).toMatchObject({ status: "pending", execution: "queued" });
    });

    const next = await start(10_000, 0);
    try {
      const jobs = await eventually(async () => {
        const list = (await next.jobs(ROUTER_A)) as Loose[];
        return list.find((job) => job.description === "queued")?.status === "completed" ? list : undefined;
      });
      expect(jobs.find((job) => job.description === "too slow")?.status).toBe("failed");
    } finally {
      await next.close();
    }
  });
});

describe("routerjobs service as a process: SIGTERM, --shutdown-grace and the data directory lock", () => {
  let dir: string;
  let data: string;
  let service: CliProcess | undefined;
  let url: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "routerjobs-sigterm-"));
    data = join(dir, "data");
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
    rmSync(dir, { recursive: true, force: true });
  });

  const args = (...extra: string[]) => [
    "service",
    "--listen",
    "127.0.0.1:0",
    "--data",
    data,
    "--seed",
    join(dir, "seed.json"),
    "--tick",
    "50ms",
    "--rate-limit",
    "100000/1m",
    // HOOK is on loopback, which a service refuses by default.
    "--notify-allow",
    "127.0.0.1",
    ...extra,
  ];
  const startService = async (extra: string[], env: Record<string, string> = {}) => {
    service = startCli(args(...extra), { env });
    url = await service.printed(/listening on (\S+)/, "the service");
  };
  const api = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const response = await request(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN_A}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return (await response.body.json()) as Loose;
  };
  const runUntilRunning = async (description: string, script: string) => {
    await api("POST", `/api/asynchronous/${ROUTER_A}`, {
      description,
      script,
      express_execute: true,
      notify_url: HOOK,
    });
    await eventually(async () => {
      const jobs = (await api("GET", `/api/routers/${ROUTER_A}/jobs`)).data as Loose[];
      return jobs.some((job) => job.description === description && job.status === "running")
        ? true
        : undefined;
    }, 120_000);
  };
  const sigterm = async () => {
    service?.child.kill("SIGTERM");
    return service?.exited;
  };

  it("a second service on the same --data is refused with one line naming the directory and the holder", async () => {
    await startService(["--shutdown-grace", "20s"]);
    const token = readFileSync(join(data, "admin-token"), "utf8");
    const second = await runCli(args(), { timeoutMs: 60_000 });
    expect(second.code).toBe(5);
    expect(second.stderr).toBe(
      `routerjobs: data directory ${join(data, "pglite")} is in use by another routerjobs process (pid ${service?.child.pid})\n`,
    );
    // The refused service did not replace the running one's admin token.
    expect(readFileSync(join(data, "admin-token"), "utf8")).toBe(token);
  });

  it("SIGTERM lets a running job finish within --shutdown-grace, then exits 0", async () => {
    await runUntilRunning("graceful", ":delay 1500ms; /system identity set name=graceful");
    expect(await sigterm()).toBe(0);
    // It waited for the script's delay rather than cutting it short: the job completed and its change is kept.
    await inDatabase(join(data, "pglite"), async (db) => {
      const graceful = await jobByDescription(db, "graceful");
      expect(graceful.job).toMatchObject({ status: "completed", error: null });
      expect(graceful.announced).toEqual(["loaded", "running", "completed"]);
      expect(await savedIdentity(db, ROUTER_A)).toBe("graceful");
    });
  });

  it("beyond ROUTERJOBS_SHUTDOWN_GRACE, SIGTERM fails the running job with a clear error and keeps what ran", async () => {
    await startService([], { ROUTERJOBS_SHUTDOWN_GRACE: "200ms" });
    await runUntilRunning(
      "cut short",
      "/system identity set name=partial; :delay 30s; /system identity set name=never",
    );
    // The 30 s script does not hold the exit: the job fails at the grace period with what ran kept (below).
    expect(
      await within(sigterm(), { what: "the service to exit at its 200 ms grace period", timeoutMs: 20_000 }),
    ).toBe(0);

    await inDatabase(join(data, "pglite"), async (db) => {
      const graceful = await jobByDescription(db, "graceful");
      expect(graceful.job).toMatchObject({ status: "completed", error: null });
      expect(graceful.announced).toEqual(["loaded", "running", "completed"]);
      const cut = await jobByDescription(db, "cut short");
      expect(cut.job).toMatchObject({ status: "failed", error: shutdownError(200) });
      expect(cut.announced).toEqual(["loaded", "running", "failed"]);
      expect(await savedIdentity(db, ROUTER_A)).toBe("partial");
    });
  });

  it("a shutdown grace that is not a duration is refused, naming the flag or the variable", async () => {
    const fromEnv = await runCli(args(), { env: { ROUTERJOBS_SHUTDOWN_GRACE: "soon" } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toBe(
      'routerjobs: ROUTERJOBS_SHUTDOWN_GRACE must be a number followed by ms, s, m or h, like 250ms or 1m (got "soon")\n',
    );
    const fromFlag = await runCli(args("--shutdown-grace", "0s"), {
      env: { ROUTERJOBS_SHUTDOWN_GRACE: "1s" },
    });
    expect(fromFlag.code).toBe(2);
    expect(fromFlag.stderr).toBe('routerjobs: --shutdown-grace must be greater than zero (got "0s")\n');
  });
});
