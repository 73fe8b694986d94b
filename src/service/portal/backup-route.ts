import type { FastifyInstance, FastifyReply } from "fastify";
import { UUID_PATTERN } from "../../contract/ids.js";
import {
  RouterCommandError,
  RouterTimeoutError,
  RouterUnreachableError,
} from "../../contract/routers/router-backend.js";
import { routerForRun } from "../auth/directory.js";
import { notFoundPage } from "./page-routes.js";
import { messagePage } from "./pages/layout.js";
import { portalJob } from "./queries.js";
import { type SignedIn, signedIn, toSignIn } from "./session-guard.js";

/** The download's file name: the backup's own name, reduced to characters every file system takes. */
export function backupFileName(backupName: string): string {
  const base = backupName.replace(/\.(backup|rsc)$/, "").replace(/[^A-Za-z0-9._-]/g, "_");
  return `${base || "backup"}.rsc`;
}

const sendMessage = (
  reply: FastifyReply,
  status: number,
  title: string,
  text: string,
  chrome: SignedIn["chrome"],
) =>
  reply
    .code(status)
    .type("text/html; charset=utf-8")
    .send(messagePage(title, text, chrome).text);

/**
 * GET /portal/jobs/{id}/backup: the export text of the backup a job took before its script, read from the
 * router (the back ends' `readBackup`), as a `.rsc` download. Another team's job is the same 404 as none; a
 * job without a backup, a router that no longer has it, is offline or too slow get a page that says so.
 */
export function backupRoute(app: FastifyInstance): void {
  app.get("/jobs/:jobId/backup", async (request, reply) => {
    const current = await signedIn(app, request);
    if (!current) return toSignIn(reply);
    const { jobId } = request.params as { jobId: string };
    const job = UUID_PATTERN.test(jobId) ? await portalJob(app.db, current.session.teamId, jobId) : undefined;
    if (!job) return notFoundPage(reply, current.chrome);
    if (!job.backup_name) {
      return sendMessage(reply, 404, "No backup", "This job took no backup.", current.chrome);
    }
    const router = await routerForRun(app.db, job.router_id);
    if (!router) {
      return sendMessage(reply, 404, "No backup", "The job's router has been removed.", current.chrome);
    }
    let text: string;
    try {
      text = await app.routers.readBackup(router, job.backup_name, app.config.syncTimeoutMs);
    } catch (error) {
      if (error instanceof RouterCommandError) {
        const message = `The router could not hand over ${job.backup_name}: ${error.message}.`;
        return sendMessage(reply, 404, "Backup not available", message, current.chrome);
      }
      if (error instanceof RouterUnreachableError || error instanceof RouterTimeoutError) {
        const message = `The backup is on the router, which is not reachable now (${error.message}). Try again later.`;
        return sendMessage(reply, 503, "Router not reachable", message, current.chrome);
      }
      throw error;
    }
    return reply
      .type("text/plain; charset=utf-8")
      .header("content-disposition", `attachment; filename="${backupFileName(job.backup_name)}"`)
      .send(text.endsWith("\n") ? text : `${text}\n`);
  });
}
