import { parseMarker, parseWave } from "../../contract/attempt-marker.js";
import type { Wave } from "../../contract/wave-check.js";
import type { Queryable } from "../database/database.js";

/**
 * Deploys as the service can see them. A service knows only jobs; what `routerjobs apply` submits carries an
 * attempt marker at the end of its description (`[rj:...]`, contract/attempt-marker.ts) and, in a Fleet's
 * rollout, its wave just before it (`(wave 2/3)`). The grouping rule (docs/portal.md, "Deploys"):
 *
 * - Only marked jobs count: a job submitted by hand, a restore of `rollback-wave`, is not part of a deploy.
 * - A team's marked jobs, in submission order, make one deploy while each is submitted at most `DEPLOY_GAP_MS`
 *   after the deploy's latest activity (a submission or a job's end; a job still open holds the deploy open
 *   for `OPEN_JOB_HOLD_MS` after its submission), or is of a later wave of a rollout the deploy is in, within
 *   `WAVE_PAUSE_MAX_MS` (a wave waits for the soak and the check of the one before, which may take longer
 *   than the gap).
 * - A run submits each declared change (the marker's resource) once: a job of a resource the deploy has
 *   already, or of a wave before one the deploy reached, starts the next deploy (a run again after a fix).
 * - In a deploy, each job is in its wave's lane (`wave 1/3`, ...); jobs outside a rollout in one lane of their
 *   own. A router is shown in every lane it has jobs in, with each of its jobs there as a bar.
 */
export const DEPLOY_GAP_MS = 10 * 60_000;
export const OPEN_JOB_HOLD_MS = 60 * 60_000;
export const WAVE_PAUSE_MAX_MS = 2 * 60 * 60_000;
/** How far back the deploys page looks, and how many marked jobs it reads at most. */
export const DEPLOY_WINDOW_MS = 7 * 86_400_000;
export const DEPLOY_JOBS_MAX = 5000;

export interface DeployJob {
  id: string;
  team_id: string;
  team_name: string | null;
  router_id: string;
  router_name: string;
  seq_id: number;
  description: string;
  status: string;
  created_at: Date;
  started_at: Date | null;
  /** When it ended: completed, failed or deleted; null while open. */
  ended_at: Date | null;
  error: string | null;
}

export interface WaveLane {
  /** Undefined: the jobs outside a rollout. */
  readonly wave: Wave | undefined;
  readonly routers: readonly {
    readonly id: string;
    readonly name: string;
    readonly jobs: readonly DeployJob[];
  }[];
  readonly start: Date;
  /** The lane's last end; null while one of its jobs is open. */
  readonly end: Date | null;
}

export interface Deploy {
  /** The first job's id: a deploy's address (`/portal/deploys/{id}`). */
  readonly id: string;
  readonly teamId: string;
  readonly teamName: string | null;
  readonly jobs: readonly DeployJob[];
  readonly lanes: readonly WaveLane[];
  readonly start: Date;
  /** The last job's end; null while a job is open. */
  readonly end: Date | null;
  readonly routers: number;
  readonly failed: number;
}

interface DeployJobRow {
  id: string;
  team_id: string;
  router_id: string;
  seq_id: number;
  description: string;
  status: string;
  error: string | null;
  created_ms: number;
  started_ms: number | null;
  ended_ms: number | null;
}

const dateOf = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/**
 * The team's (or, for `null`, every team's) marked jobs of the window, oldest first. Times come as epoch
 * milliseconds and names in statements of their own: turning thousands of timestamps into Dates, and
 * repeating a router's and a team's name in every row, cost the embedded store's thread more than the scan.
 */
export async function deployJobs(db: Queryable, teamId: string | null, now: Date): Promise<DeployJob[]> {
  const { rows } = await db.query<DeployJobRow>(
    `SELECT j.id, j.team_id, j.router_id, j.seq_id, j.description, j.status, j.error,
       (extract(epoch FROM j.created_at) * 1000)::float8 AS created_ms,
       (extract(epoch FROM j.started_at) * 1000)::float8 AS started_ms,
       (extract(epoch FROM coalesce(j.completed_at, j.failed_at, j.deleted_at)) * 1000)::float8 AS ended_ms
     FROM jobs j
     WHERE strpos(lower(j.description), '[rj:') > 0 AND j.created_at > $2 AND ($1::uuid IS NULL OR j.team_id = $1)
     ORDER BY j.created_at DESC, j.seq_id DESC LIMIT $3`,
    [teamId, new Date(now.getTime() - DEPLOY_WINDOW_MS), DEPLOY_JOBS_MAX],
  );
  if (rows.length === 0) return [];
  const names = await db.query<{ id: string; name: string; team_name: string | null }>(
    `SELECT r.id, r.name, t.name AS team_name FROM routers r JOIN teams t ON t.id = r.team_id
     WHERE $1::uuid IS NULL OR r.team_id = $1`,
    [teamId],
  );
  const byId = new Map(names.rows.map((row) => [row.id, row]));
  const jobs: DeployJob[] = [];
  // Oldest first; a marker the text filter let through is checked as apply checks it.
  for (let index = rows.length - 1; index >= 0; index--) {
    const row = rows[index] as DeployJobRow;
    if (parseMarker(row.description) === undefined) continue;
    const router = byId.get(row.router_id);
    jobs.push({
      id: row.id,
      team_id: row.team_id,
      team_name: router?.team_name ?? null,
      router_id: row.router_id,
      router_name: router?.name ?? row.router_id,
      seq_id: row.seq_id,
      description: row.description,
      status: row.status,
      created_at: new Date(row.created_ms),
      started_at: dateOf(row.started_ms),
      ended_at: dateOf(row.ended_ms),
      error: row.error,
    });
  }
  return jobs;
}

const FAILED = new Set(["failed"]);

interface OpenDeploy {
  jobs: DeployJob[];
  /** The latest submission or end so far (an open job: its hold), in ms. */
  activity: number;
  /** Per rollout (its number of waves), the highest wave seen. */
  waves: Map<number, number>;
  /** The markers' resource tags seen: each declared change once a run. */
  resources: Set<string>;
}

/** The deploys of `jobs` (oldest first, as `deployJobs` reads them), newest deploy first. */
export function groupDeploys(jobs: readonly DeployJob[]): Deploy[] {
  const open = new Map<string, OpenDeploy>();
  const done: DeployJob[][] = [];
  for (const job of jobs) {
    const wave = parseWave(job.description);
    const resource = parseMarker(job.description)?.resourceTag ?? "";
    const current = open.get(job.team_id);
    const submitted = job.created_at.getTime();
    const pause = current === undefined ? Number.POSITIVE_INFINITY : submitted - current.activity;
    const reached = wave === undefined ? undefined : current?.waves.get(wave.waves);
    const laterWave = wave !== undefined && reached !== undefined && wave.wave > reached;
    const earlierWave = wave !== undefined && reached !== undefined && wave.wave < reached;
    const again = current?.resources.has(resource) === true || earlierWave;
    const continues = !again && (pause <= DEPLOY_GAP_MS || (laterWave && pause <= WAVE_PAUSE_MAX_MS));
    const deploy: OpenDeploy =
      continues && current
        ? current
        : { jobs: [], activity: submitted, waves: new Map(), resources: new Set() };
    deploy.resources.add(resource);
    if (deploy !== current) {
      if (current) done.push(current.jobs);
      open.set(job.team_id, deploy);
    }
    deploy.jobs.push(job);
    deploy.activity = Math.max(deploy.activity, job.ended_at?.getTime() ?? submitted + OPEN_JOB_HOLD_MS);
    if (wave) deploy.waves.set(wave.waves, Math.max(deploy.waves.get(wave.waves) ?? 0, wave.wave));
  }
  for (const deploy of open.values()) done.push(deploy.jobs);
  return done.map(deployOf).sort((a, b) => b.start.getTime() - a.start.getTime());
}

function deployOf(jobs: readonly DeployJob[]): Deploy {
  const first = jobs[0] as DeployJob;
  const lanes = new Map<string, { wave: Wave | undefined; jobs: DeployJob[] }>();
  for (const job of jobs) {
    const wave = parseWave(job.description);
    const key = wave ? `${wave.waves}:${wave.wave}` : "";
    const lane = lanes.get(key) ?? { wave, jobs: [] };
    lane.jobs.push(job);
    lanes.set(key, lane);
  }
  const ordered = [...lanes.values()].sort(
    (a, b) =>
      (a.wave?.wave ?? 0) - (b.wave?.wave ?? 0) ||
      (a.wave?.waves ?? 0) - (b.wave?.waves ?? 0) ||
      (a.jobs[0]?.created_at.getTime() ?? 0) - (b.jobs[0]?.created_at.getTime() ?? 0),
  );
  return {
    id: first.id,
    teamId: first.team_id,
    teamName: first.team_name,
    jobs,
    lanes: ordered.map((lane) => ({
      wave: lane.wave,
      routers: byRouter(lane.jobs),
      start: lane.jobs[0]?.created_at ?? first.created_at,
      end: lastEnd(lane.jobs),
    })),
    start: first.created_at,
    end: lastEnd(jobs),
    routers: new Set(jobs.map((job) => job.router_id)).size,
    failed: jobs.filter((job) => FAILED.has(job.status)).length,
  };
}

/** The routers of a lane in the order their first jobs were submitted, each with its jobs there. */
function byRouter(jobs: readonly DeployJob[]): WaveLane["routers"] {
  const routers = new Map<string, { id: string; name: string; jobs: DeployJob[] }>();
  for (const job of jobs) {
    const router = routers.get(job.router_id) ?? { id: job.router_id, name: job.router_name, jobs: [] };
    router.jobs.push(job);
    routers.set(job.router_id, router);
  }
  return [...routers.values()];
}

function lastEnd(jobs: readonly DeployJob[]): Date | null {
  let end = 0;
  for (const job of jobs) {
    if (job.ended_at === null) return null;
    end = Math.max(end, job.ended_at.getTime());
  }
  return new Date(end);
}
