/**
 * The two services the kill matrix runs against, behind one face: our service (the simulated routers, which
 * honour Idempotency-Key) and the stand-in of the public service (which ignores it and answers 200). Each sits
 * behind a submission gate (a loopback proxy that can lose a submission or its answer) and counts what its
 * routers ran, in order: the runs per declared change are counted there, not in any client's records.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { ScriptOutcome } from "../../src/contract/routers/router-backend.js";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { applySeed } from "../../src/service/seed.js";
import { startTestService } from "../service/harness.js";
import { startStandIn } from "../standin/standin.js";
import { type SubmissionGate, startSubmissionGate } from "./submission-gate.js";

export type JobStatus = "pending" | "running" | "completed" | "failed" | "deleted";
export interface ListedJob {
  readonly id: string;
  readonly status: JobStatus;
  readonly script: string;
  /** Ends with the attempt's marker: which resource, definition and Terraform instance submitted it. */
  readonly description: string;
  /**
   * The time apply's rule for a failure after a timeout counts from (src/deploy/job-list/attempts.ts): when the service
   * accepted the job (ours lists `created_at`), else when it started (the stand-in lists the spec's fields).
   */
  readonly since?: Date | undefined;
}

/** One cell's view of a service: its own team, token, two routers and submission gate. */
export interface KillTarget {
  /** How the service is reached: through the cell's gate. */
  readonly url: string;
  readonly ca: string;
  readonly token: string;
  readonly gate: SubmissionGate;
  readonly routers: { readonly a: string; readonly a2: string };
  /** A line that makes a script fail on this service's routers, and the reason the service reports (if any). */
  readonly failingLine: string;
  readonly reason: string | undefined;
  /** Jobs for the router wait at the service (not run, or run with the outcome held) until `releaseRouter`. */
  holdRouter(routerId: string): Promise<void>;
  releaseRouter(routerId: string): void;
  jobs(routerId: string): Promise<readonly ListedJob[]>;
  /** The scripts the router ran, in order. */
  runs(routerId: string): readonly string[];
  /** Closes the cell's gate (the service stays for the other cells). */
  close(): Promise<void>;
}

/**
 * One service for many cells: starting our service costs seconds of CPU (its store, its TLS), so the cells
 * of a target share one, each with a team of its own (token, routers): they cannot see each other's jobs.
 */
export interface TargetService {
  cell(): Promise<KillTarget>;
  close(): Promise<void>;
}

export type TargetName = "our service" | "the stand-in";
export const TARGETS: readonly TargetName[] = ["our service", "the stand-in"];

export const startTargetService = (name: TargetName, cells: number): Promise<TargetService> =>
  name === "our service" ? ourService() : standIn(cells);

interface Team {
  readonly id: string;
  readonly token: string;
  readonly routers: { readonly a: string; readonly a2: string };
}
const newTeam = (token: (team: string) => string): Team => {
  const id = randomUUID();
  return { id, token: token(id), routers: { a: randomUUID(), a2: randomUUID() } };
};

/** The simulated routers of our service, recording every script a job runs on them. */
class RecordingBackend extends SimulatedBackend {
  readonly ran = new Map<string, string[]>();

  override async runScript(
    routerId: string,
    script: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ScriptOutcome> {
    const outcome = await super.runScript(routerId, script, options);
    this.ran.set(routerId, [...(this.ran.get(routerId) ?? []), script]);
    return outcome;
  }
}

async function ourService(): Promise<TargetService> {
  const backend = new RecordingBackend({ seed: 7 });
  const service = await startTestService({ rateLimit: { count: 1000, windowMs: 1000 } }, backend);
  const { db } = service.service.app;
  return {
    cell: async () => {
      const team = newTeam((id) => `${randomUUID()}:${id}:${randomBytes(31).toString("hex")}`);
      await applySeed(db, {
        teams: [
          {
            id: team.id,
            tokens: [team.token],
            routers: [
              { id: team.routers.a, name: "edge-a" },
              { id: team.routers.a2, name: "edge-a2" },
            ],
          },
        ],
      } as never);
      const gate = await startSubmissionGate({ url: service.url, ca: service.service.ca as string });
      return {
        url: gate.url,
        ca: gate.ca,
        token: team.token,
        gate,
        routers: team.routers,
        failingLine: "/ip address add address=10.1.1.1/24 interface=nope",
        reason: "input does not match any value of interface",
        holdRouter: async (routerId) => {
          // The service attaches a router on its first use; an offline router leaves its jobs pending.
          await service.call("POST", `/api/synchronous/${routerId}`, {
            token: team.token,
            body: { command: "/system/identity/print" },
          });
          backend.setOnline(routerId, false);
        },
        releaseRouter: (routerId) => backend.setOnline(routerId, true),
        // Watched in the service's store (no request): several cells poll at once on two loaded cores.
        jobs: async (routerId) =>
          (
            await db.query<ListedJob>(
              "SELECT id, status, script, description, created_at AS since FROM jobs WHERE router_id = $1 ORDER BY seq_id",
              [routerId],
            )
          ).rows,
        runs: (routerId) => backend.ran.get(routerId) ?? [],
        close: () => gate.close(),
      };
    },
    close: () => service.close(),
  };
}

async function standIn(cells: number): Promise<TargetService> {
  const teams = Array.from({ length: cells }, () =>
    newTeam(() => `console-api-key-${randomBytes(8).toString("hex")}`),
  );
  const service = await startStandIn({
    teams: teams.map((team) => ({
      id: team.id,
      tokens: [team.token],
      sites: [team.routers.a, team.routers.a2],
    })),
    tls: true,
    rateLimitMax: 1000,
    tickMs: 20,
  });
  return {
    cell: async () => {
      const team = teams.shift();
      if (!team) throw new Error(`the stand-in was started for ${cells} cells`);
      const gate = await startSubmissionGate({ url: service.url, ca: service.ca as string });
      return {
        url: gate.url,
        ca: gate.ca,
        token: team.token,
        gate,
        routers: team.routers,
        failingLine: ':error "dns rejected"',
        // The public service's failed job carries no reason: the router's log has it (NOTES.md).
        reason: undefined,
        holdRouter: async (routerId) => service.holdSite(routerId),
        releaseRouter: (routerId) => service.releaseSite(routerId),
        jobs: async (routerId) =>
          service
            .jobs(routerId)
            .map((job) => ({ ...job, since: job.startedAt === null ? undefined : new Date(job.startedAt) })),
        runs: (routerId) => service.runs(routerId).map((run) => run.script),
        close: () => gate.close(),
      };
    },
    close: () => service.close(),
  };
}
