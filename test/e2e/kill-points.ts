/**
 * The kill points of the exactly-once matrix, as data: what each cell deploys first, what the killed deploy
 * declares, how the moment of the kill is reached (by watching the service, the gate or the state file), what
 * happens after the kill, and what the routers must have run in the end.
 */
import { A2_EXTRA, A2_IDENTITY, DNS_DESTROY, type Layout } from "./deploy-harness.js";
import type { KillCell } from "./kill-cell.js";
import type { KillTarget } from "./kill-targets.js";

const DNS_1 = "/ip dns set servers=1.1.1.1";
const DNS_8 = "/ip dns set servers=8.8.8.8";
/** Router A's dns change that fails on the router: the line after the dns servers is refused. */
export const failingDns = (target: KillTarget, servers: string) =>
  `/ip dns set servers=${servers}\n${target.failingLine}`;

export interface KillPoint {
  readonly name: string;
  /** Deployed (to the end) before the deploy that is killed. */
  readonly deployedFirst?: (target: KillTarget) => Omit<Layout, "routers">;
  readonly killed: (target: KillTarget) => Omit<Layout, "routers">;
  /** Sets the trap before the killed deploy starts. */
  arm(cell: KillCell): Promise<void>;
  /** Resolves at the moment to kill, with what the cell saw there (for the figures), if worth saying. */
  reach(cell: KillCell): Promise<string | undefined>;
  /** What happens at the service after the kill, before the deploy runs again. */
  afterKill(cell: KillCell): Promise<void>;
  /** What happens at the service while the deploy runs again (started as it starts). */
  duringRerun?(cell: KillCell): Promise<void>;
  /** The re-run: exit 0, or exit 1 with the router's reason (where the service gives one). */
  readonly fails: boolean;
  /** After a reported failure: the deliberate next deploy runs the change again (Terraform tainted it). */
  readonly retried?: boolean;
  readonly says?: string;
  /** What router A ran, in order, and how often router A2 ran each script, by the end of the re-run. */
  runsOnA(target: KillTarget): readonly string[];
  runsOnA2: Readonly<Record<string, number>>;
}

const onceEach = (...scripts: string[]) => Object.fromEntries(scripts.map((script) => [script, 1]));
const routerA = (cell: KillCell) => cell.target.routers.a;
const holdA = (cell: KillCell) => cell.target.holdRouter(routerA(cell));
const releaseA = async (cell: KillCell) => cell.target.releaseRouter(routerA(cell));
/** After the kill, the held job runs and fails: the failure happens when nobody is listening. */
const releaseAndFail = async (cell: KillCell) => {
  cell.target.releaseRouter(routerA(cell));
  await cell.jobMatching(routerA(cell), (job) => job.status === "failed");
};
/**
 * Router A is released only once the re-run has read its job list: the re-run finds the job in flight and waits
 * for it. Released earlier, the job could finish before the re-run looks, and when Terraform had written router
 * A's instance mid-provisioner (it persists the state as a sibling finishes), the re-run rightly has nothing to
 * do: a different, also correct, path than the one this cell is about.
 */
const releaseAOnceListed = async (cell: KillCell) => {
  const before = cell.target.gate.requests().length;
  await cell.requestSeen(
    (seen, index) => index >= before && seen.method === "GET" && seen.path.includes(routerA(cell)),
  );
  cell.target.releaseRouter(routerA(cell));
};
const submittedToA = (cell: KillCell) =>
  cell.target.gate
    .requests()
    .some((seen) => seen.forwarded && seen.method === "POST" && seen.path.includes(routerA(cell)));

export const KILL_POINTS: readonly KillPoint[] = [
  {
    name: "before the submission",
    killed: () => ({ dns: DNS_1 }),
    arm: async (cell) => cell.target.gate.hold("request"),
    reach: async (cell) => {
      await cell.target.gate.held(routerA(cell));
      return undefined;
    },
    afterKill: async (cell) => {
      cell.target.gate.open();
      if (submittedToA(cell)) throw new Error("the submission reached the service before the kill");
    },
    fails: false,
    runsOnA: () => [DNS_1],
    runsOnA2: onceEach(A2_IDENTITY),
  },
  {
    name: "between submission and acknowledgement",
    killed: () => ({ dns: DNS_1 }),
    arm: async (cell) => cell.target.gate.hold("answer"),
    reach: async (cell) => {
      await cell.target.gate.held(routerA(cell));
      return undefined;
    },
    afterKill: async (cell) => {
      cell.target.gate.open();
      if (!submittedToA(cell)) throw new Error("the submission did not reach the service");
    },
    fails: false,
    runsOnA: () => [DNS_1],
    runsOnA2: onceEach(A2_IDENTITY),
  },
  {
    name: "while waiting",
    killed: () => ({ dns: DNS_1 }),
    arm: holdA,
    reach: async (cell) => {
      await cell.waitingJob(routerA(cell));
      return undefined;
    },
    afterKill: async () => {},
    duringRerun: releaseAOnceListed,
    fails: false,
    says: "not submitting it again",
    runsOnA: () => [DNS_1],
    runsOnA2: onceEach(A2_IDENTITY),
  },
  {
    name: "right after a sibling finished (the blind spot)",
    deployedFirst: () => ({ dns: DNS_1, a2Extra: true }),
    killed: (target) => ({ dns: failingDns(target, "9.9.9.9") }),
    arm: holdA,
    reach: async (cell) => {
      await cell.waitingJob(routerA(cell));
      // A2's extra is destroyed meanwhile (no job: a destroy provisioner does not run for a block deleted from
      // the configuration); Terraform then persists its state, and may write router A's new instance into it
      // while A's provisioner still waits: the blind spot. Kill once the sibling's destruction is recorded.
      const siblingGone = await cell.stateComesTo((state) => !state.includes('"edge-a2_extra'), 10_000);
      const key = cell.jobKeyOf("edge-a_dns");
      const recorded = await cell.stateComesTo((state) => state.includes(key), siblingGone ? 2_000 : 0);
      return `${siblingGone ? "sibling's destruction recorded" : "sibling still in the state"}, ${
        recorded ? "router A's new instance written mid-provisioner" : "router A's new instance not written"
      }`;
    },
    afterKill: releaseAndFail,
    fails: true,
    runsOnA: (target) => [DNS_1, failingDns(target, "9.9.9.9")],
    runsOnA2: onceEach(A2_IDENTITY, A2_EXTRA),
  },
  {
    name: "right after a sibling's apply reported, before Terraform recorded it",
    killed: () => ({ dns: DNS_1 }),
    arm: holdA,
    reach: async (cell) => {
      // Router A's job is held, so the deploy still runs when router A2's apply reports. That apply writes
      // "reported" in the journal and exits 0; only then does Terraform write A2's instance to its state. Killed
      // in between, the re-run creates a new instance of a change this machine reported done, which must not
      // run again. The tree is frozen as the journal is written: the state read here is the one the kill leaves.
      const key = cell.jobKeyOf("edge-a2_identity");
      await cell.freezeWhenReported(key);
      const recorded = await cell.stateComesTo((state) => state.includes(key), 0);
      return recorded ? "Terraform had recorded the sibling" : "the sibling reported, not yet recorded";
    },
    afterKill: releaseA,
    fails: false,
    runsOnA: () => [DNS_1],
    runsOnA2: onceEach(A2_IDENTITY),
  },
  {
    name: "in the middle of a destroy-then-create replacement",
    deployedFirst: () => ({ dns: DNS_1, dnsDestroy: true }),
    killed: () => ({ dns: DNS_8, dnsDestroy: true }),
    arm: holdA,
    reach: async (cell) => {
      // The destroy job of the old definition is the first to wait.
      await cell.waitingJob(routerA(cell));
      return undefined;
    },
    afterKill: releaseA,
    fails: false,
    runsOnA: () => [DNS_1, DNS_DESTROY, DNS_8],
    runsOnA2: onceEach(A2_IDENTITY),
  },
  {
    name: "while waiting, its job failing after the kill",
    killed: (target) => ({ dns: failingDns(target, "1.1.1.1") }),
    arm: holdA,
    reach: async (cell) => {
      await cell.waitingJob(routerA(cell));
      return undefined;
    },
    afterKill: releaseAndFail,
    fails: true,
    retried: true,
    runsOnA: (target) => [failingDns(target, "1.1.1.1"), failingDns(target, "1.1.1.1")],
    runsOnA2: onceEach(A2_IDENTITY),
  },
];
