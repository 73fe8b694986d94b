/**
 * Exactly once, for real (issue 13): one matrix of every kill point x {apply journal kept, lost (a fresh CI
 * runner)} x {our service, the stand-in of the public service (ignores Idempotency-Key, answers 200)}.
 * `routerjobs deploy` (built CLI, real Terraform, real applies) is killed with SIGKILL, its whole process group,
 * at a moment found by watching the service, the submission gate or the state file (never the clock); then it
 * runs again. Each cell counts what the routers ran per declared script: 0 lost, 0 run twice, every failure
 * reported (exit 1, and the router's reason where the service gives one). Cells run side by side, each with its
 * own service, gate, stack folder and journal. The figures are printed once, at the end.
 */
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { terraformOrSkip } from "../helpers/terraform.js";
import { A2_IDENTITY, killTree } from "./deploy-harness.js";
import { KillCell } from "./kill-cell.js";
import { failingDns, KILL_POINTS, type KillPoint } from "./kill-points.js";
import { startTargetService, TARGETS, type TargetService } from "./kill-targets.js";

const terraform = terraformOrSkip("the exactly-once kill matrix with terraform");
type Journal = "kept" | "lost";
const JOURNALS: readonly Journal[] = ["kept", "lost"];

const figures: string[] = [];
const tallyOf = (scripts: readonly string[]) => {
  const counts: Record<string, number> = {};
  for (const script of scripts) counts[script] = (counts[script] ?? 0) + 1;
  return counts;
};

/** Opens a cell, runs `body` in it, and closes it whatever happened. */
async function inCell<T>(service: TargetService, body: (cell: KillCell) => Promise<T>): Promise<T> {
  const cell = await KillCell.open(service);
  try {
    return await body(cell);
  } finally {
    await cell.close();
  }
}

/**
 * Router A's `dns` deployed with router A held and an 8 s timeout: its apply gives up (exit 1, so Terraform
 * taints the resource); then router A is released and its job ends `status`, heard by nobody. With
 * `backAfterTimeout`, router A comes back only once the timeout has passed since the time apply's rule counts
 * from (the service accepted the job, or the stand-in started it), as a router offline for a while does:
 * released at once, it can come back within the moments the apply spent before its submission reached the
 * service, and the job's times could not prove that it ended after the apply gave up (seen in CI on Node 24).
 */
async function timedOutThen(
  cell: KillCell,
  dns: string,
  status: "completed" | "failed",
  backAfterTimeout = false,
): Promise<void> {
  const timeoutMs = 8_000;
  cell.synthesize({ dns, dnsTimeout: "8s" });
  await cell.target.holdRouter(cell.target.routers.a);
  const gaveUp = await cell.deploy();
  expect(gaveUp.code, gaveUp.output).toBe(1);
  expect(gaveUp.output).toContain("not finished after 8s");
  if (backAfterTimeout) {
    const listed = await cell.target.jobs(cell.target.routers.a);
    expect(listed).toHaveLength(1);
    const since = listed[0]?.since;
    if (!since)
      throw new Error("the service says neither when it accepted router A's job nor when it started");
    // Time itself is the condition here (the service's clock past that time + the timeout), not another
    // process's progress: usually it has passed already and nothing waits. A second more: the spec's list at the
    // stand-in gives whole seconds, so its times may lie up to a second before the real ones (a router released
    // at the truncated time + the timeout failed its job exactly the timeout after, by the list's times).
    const wait = since.getTime() + timeoutMs + 1001 - Date.now();
    if (wait > 0) await delay(wait);
  }
  cell.target.releaseRouter(cell.target.routers.a);
  await cell.jobMatching(cell.target.routers.a, (job) => job.status === status);
}

async function runCell(cell: KillCell, point: KillPoint, journal: Journal): Promise<string> {
  const { target } = cell;
  const rerun = () => {
    if (journal === "lost") cell.forgetJournal();
    return cell.deploy();
  };
  if (point.deployedFirst) {
    cell.synthesize(point.deployedFirst(target));
    const first = await cell.deploy();
    expect(first.code, first.output).toBe(0);
  }
  // WHEN the deploy of the next configuration is killed, process group and all, at the kill point
  cell.synthesize(point.killed(target));
  await point.arm(cell);
  const killed = cell.start();
  const note = await Promise.race([
    point.reach(cell),
    killed.done.then(({ code, output }) => {
      throw new Error(`the deploy ended (exit ${code}) before the kill point:\n${output}`);
    }),
  ]);
  killTree(killed.child);
  await killed.done;
  await point.afterKill(cell);
  // THEN the deploy run again finishes the work, or reports the failure, with the router's reason
  const rerunning = rerun();
  if (point.duringRerun) {
    await Promise.race([
      point.duringRerun(cell),
      rerunning.then(({ code, output }) => {
        throw new Error(`the re-run ended (exit ${code}) before it was let through:\n${output}`);
      }),
    ]);
  }
  const again = await rerunning;
  expect(again.code, again.output).toBe(point.fails ? 1 : 0);
  if (point.fails && target.reason) expect(again.output).toContain(target.reason);
  if (point.says) expect(again.output).toContain(point.says);
  // AND a reported failure is run again only by the deliberate next deploy (Terraform tainted the resource)
  if (point.retried) {
    const retry = await rerun();
    expect(retry.code, retry.output).toBe(1);
  }
  // AND every declared change ran once at the routers (a deliberate retry once more), router A's in order
  const story = await cell.story();
  expect(cell.runsOnA(), story).toEqual(point.runsOnA(target));
  expect(cell.tallyOnA2(), story).toEqual(point.runsOnA2);
  const runs = [...Object.values(tallyOf(point.runsOnA(target))), ...Object.values(point.runsOnA2)];
  return `${runs.length} changes, ${runs.filter((count) => count === 1).length} ran once${
    point.retried ? " (the failed one twice: once, then its deliberate retry)" : ""
  }, 0 lost${point.fails ? `, failure reported (exit 1${target.reason ? ", with the router's reason" : ""})` : ""}${
    note ? `; ${note}` : ""
  }`;
}

/**
 * The tests beside the matrix, each a cell of its own (the stand-in of the public service is started with a team
 * per cell, so it is told how many there are).
 */
const STANDALONE: readonly { readonly name: string; readonly body: (cell: KillCell) => Promise<void> }[] = [
  {
    name: "a change whose apply timed out (tainted) and whose job completed since is not run again",
    body: async (cell) => {
      // GIVEN a deploy whose apply for router A gave up waiting, and the job completed afterwards
      await timedOutThen(cell, "/ip dns set servers=1.1.1.1", "completed");
      // WHEN the next deploy replaces the tainted resource
      const next = await cell.deploy();
      // THEN it finds the completed job and does not run the change again
      expect(next.code, next.output).toBe(0);
      expect(next.output).toContain("it completed after its apply stopped waiting");
      expect(cell.runsOnA()).toEqual(["/ip dns set servers=1.1.1.1"]);
    },
  },
  {
    name: "a change whose apply timed out and whose job failed since is reported, then run again by the deploy after",
    body: async (cell) => {
      // GIVEN a deploy whose apply for router A gave up waiting, and the job failed afterwards
      const script = failingDns(cell.target, "1.1.1.1");
      await timedOutThen(cell, script, "failed");
      // WHEN the next deploy runs, THEN it reports that failure (with the router's reason) and runs nothing
      const next = await cell.deploy();
      expect(next.code, next.output).toBe(1);
      expect(next.output).toContain("it failed after its apply stopped waiting");
      if (cell.target.reason) expect(next.output).toContain(cell.target.reason);
      expect(cell.runsOnA()).toEqual([script]);
      // AND the deploy after that runs it again (a deliberate retry of a reported failure)
      const retry = await cell.deploy();
      expect(retry.code, retry.output).toBe(1);
      expect(cell.runsOnA()).toEqual([script, script]);
    },
  },
  {
    name: "a change whose apply timed out and whose job failed since is reported first from a fresh runner too",
    body: async (cell) => {
      // GIVEN a deploy whose apply for router A gave up waiting, and the job failed afterwards
      const script = failingDns(cell.target, "1.1.1.1");
      await timedOutThen(cell, script, "failed", true);
      // WHEN the next deploy runs on a runner without that apply's journal
      cell.forgetJournal();
      const next = await cell.deploy();
      // THEN the job's times tell that the failure came after the apply gave up: reported, nothing run
      expect(next.code, next.output).toBe(1);
      expect(next.output).toContain("it failed after its apply stopped waiting");
      if (cell.target.reason) expect(next.output).toContain(cell.target.reason);
      expect(cell.runsOnA()).toEqual([script]);
      // AND the deploy after that, on yet another runner, runs it again (a deliberate retry)
      cell.forgetJournal();
      const retry = await cell.deploy();
      expect(retry.code, retry.output).toBe(1);
      expect(cell.runsOnA()).toEqual([script, script]);
    },
  },
  {
    name: "a job edited by hand after synth fails in its own apply, naming the field; the rest deploys",
    body: async (cell) => {
      // GIVEN a synthesized stack whose dns job someone changed by hand in cdk.tf.json (its key no longer fits)
      cell.synthesize({ dns: "/ip dns set servers=1.1.1.1" });
      cell.editJobs((job) =>
        job.script === "/ip dns set servers=1.1.1.1"
          ? { ...job, script: "/ip dns set servers=9.9.9.9" }
          : job,
      );
      // WHEN it is deployed, THEN that apply fails with the field and what to do, in one line, and nothing ran on A
      const edited = await cell.deploy();
      expect(edited.code, edited.output).toBe(1);
      expect(edited.output).toContain("job_key does not match the job");
      expect(edited.output).toContain("synthesize (cdktf synth) or plan again");
      expect(edited.output).not.toMatch(/^\s+at /m);
      expect(cell.runsOnA()).toEqual([]);
      // AND router A2's independent change deployed, once
      expect(cell.tallyOnA2()).toEqual({ [A2_IDENTITY]: 1 });
      // AND once synthesized again, the next deploy runs the dns change, once
      cell.synthesize({ dns: "/ip dns set servers=1.1.1.1" });
      const again = await cell.deploy();
      expect(again.code, again.output).toBe(0);
      expect(cell.runsOnA()).toEqual(["/ip dns set servers=1.1.1.1"]);
      expect(cell.tallyOnA2()).toEqual({ [A2_IDENTITY]: 1 });
    },
  },
  {
    name: "a deliberate -replace runs the change again; a plain re-deploy does not",
    body: async (cell) => {
      cell.synthesize({ dns: "/ip dns set servers=1.1.1.1" });
      expect((await cell.deploy()).code).toBe(0);
      cell.forgetJournal();
      const plain = await cell.deploy();
      expect(plain.code, plain.output).toBe(0);
      expect(cell.runsOnA()).toEqual(["/ip dns set servers=1.1.1.1"]);
      const address = await cell.addressOf("office/edge-a/dns");
      cell.forgetJournal();
      const replaced = await cell.deploy([`-replace=${address}`]);
      expect(replaced.code, replaced.output).toBe(0);
      expect(cell.runsOnA()).toEqual(["/ip dns set servers=1.1.1.1", "/ip dns set servers=1.1.1.1"]);
    },
  },
];

describe.skipIf(terraform === undefined)(
  "every declared change runs exactly once, whatever is killed",
  () => {
    afterAll(() => {
      console.log(`exactly once under SIGKILL (runs counted at the routers):\n${figures.sort().join("\n")}`);
    });

    describe.concurrent.each(TARGETS)("at %s", (target) => {
      // One service per target, shared by its cells: each cell has a team, routers and gate of its own.
      let service: TargetService;
      beforeAll(async () => {
        service = await startTargetService(target, KILL_POINTS.length * JOURNALS.length + STANDALONE.length);
      });
      afterAll(() => service.close());

      for (const point of KILL_POINTS) {
        for (const journal of JOURNALS) {
          it(`killed ${point.name}, apply journal ${journal}`, { timeout: 300_000 }, async () => {
            const figure = await inCell(service, (cell) => runCell(cell, point, journal));
            figures.push(`  ${target} | killed ${point.name} | journal ${journal}: ${figure}`);
          });
        }
      }

      for (const { name, body } of STANDALONE) {
        it(name, { timeout: 300_000 }, () => inCell(service, body));
      }
    });
  },
);
