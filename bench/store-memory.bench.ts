/**
 * The embedded store's memory: a real `routerjobs service` and a real `routerjobs receiver`, each on its own
 * PGlite data directory, their RSS idle after a fresh start, after 1,000 async submissions (service) or 1,000
 * notifications (receiver), and idle again after a restart on the same directory; against an idle `node`
 * process in the same run. Goal (issue 20): <= 200 MiB each.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { startCli } from "../test/helpers/cli.js";
import { startReceiverProcess } from "../test/helpers/receiver-process.js";
import { newJob, notificationFor, Sender } from "../test/service/receiver/helpers.js";
import { type BenchReport, round, rssMiB } from "./harness.js";

const TEAM = "a0000000-0000-4000-8000-000000000001";
const TOKEN = `aa000000-0000-4000-8000-000000000001:${TEAM}:${"A1b2C3d4E5".repeat(6)}xy`;
const ROUTER = "b0000000-0000-4000-8000-000000000001";
const LOAD = 1000;
const CONCURRENCY = 8;
/** RSS settles a moment after start (lazy compilation, GC): read it after this pause. */
const SETTLE_MS = 2000;

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

async function settledRss(pid: number | undefined): Promise<number> {
  await settle();
  return round((await rssMiB(pid as number)) ?? Number.NaN, 0);
}

/** `count` calls of `send`, `CONCURRENCY` in flight. */
async function load(count: number, send: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) await send(next++);
    }),
  );
}

async function idleNode(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  try {
    return await settledRss(child.pid);
  } finally {
    child.kill();
  }
}

async function service(dir: string): Promise<{ idle: number; loaded: number; restarted: number }> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "seed.json"),
    JSON.stringify({ teams: [{ id: TEAM, tokens: [TOKEN], routers: [{ id: ROUTER, name: "edge" }] }] }),
  );
  const args = [
    "service",
    "--listen",
    "127.0.0.1:0",
    "--data",
    join(dir, "data"),
    "--seed",
    join(dir, "seed.json"),
  ];
  const first = startCli([...args, "--rate-limit", "1000000/1s", "--tick", "1h"]);
  let idle: number;
  let loaded: number;
  try {
    const url = await first.printed(/listening on (\S+)/, "the service");
    idle = await settledRss(first.child.pid);
    const pool = new Pool(url, { connections: CONCURRENCY });
    await load(LOAD, async (index) => {
      const response = await pool.request({
        method: "POST",
        path: `/api/asynchronous/${ROUTER}`,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ description: `memory ${index}`, script: "/system identity set name=edge" }),
      });
      await response.body.dump();
      if (response.statusCode !== 202) throw new Error(`submission ${index}: HTTP ${response.statusCode}`);
    });
    await pool.close();
    loaded = await settledRss(first.child.pid);
  } finally {
    await first.stop();
  }
  const second = startCli(args);
  try {
    await second.printed(/listening on (\S+)/, "the service");
    return { idle, loaded, restarted: await settledRss(second.child.pid) };
  } finally {
    await second.stop();
  }
}

async function receiver(dir: string): Promise<{ idle: number; loaded: number; restarted: number }> {
  const first = await startReceiverProcess(dir);
  let idle: number;
  let loaded: number;
  try {
    idle = await settledRss(first.process.child.pid);
    const sender = new Sender(first.notifyUrl, first.ca);
    await load(LOAD, async (index) => {
      const answer = await sender.post(notificationFor(newJob(), "completed"));
      if (answer.status !== 200) throw new Error(`notification ${index}: HTTP ${answer.status}`);
    });
    await sender.close();
    loaded = await settledRss(first.process.child.pid);
  } finally {
    await first.close();
  }
  const second = await startReceiverProcess(dir);
  try {
    return { idle, loaded, restarted: await settledRss(second.process.child.pid) };
  } finally {
    await second.close();
  }
}

export async function run(): Promise<BenchReport> {
  const dir = await mkdtemp(join(tmpdir(), "routerjobs-store-memory-"));
  try {
    const node = await idleNode();
    const svc = await service(join(dir, "service"));
    const rcv = await receiver(join(dir, "receiver"));
    const row = (name: string, m: { idle: number; loaded: number; restarted: number }) =>
      `${name.padEnd(9)} idle ${m.idle} MiB, after ${LOAD} ${m.loaded} MiB, restarted idle ${m.restarted} MiB`;
    return {
      title: "PGlite-backed service and receiver: RSS idle and under load (goal <= 200 MiB each)",
      metrics: {
        nodeIdleMiB: node,
        serviceIdleMiB: svc.idle,
        serviceLoadedMiB: svc.loaded,
        serviceRestartedMiB: svc.restarted,
        receiverIdleMiB: rcv.idle,
        receiverLoadedMiB: rcv.loaded,
        receiverRestartedMiB: rcv.restarted,
      },
      lines: [`node      idle ${node} MiB (baseline)`, row("service", svc), row("receiver", rcv)],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
