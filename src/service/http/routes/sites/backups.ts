import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod";
import { RouterCommandError } from "../../../../contract/routers/router-backend.js";
import {
  type SiteBackup,
  siteBackupContentSchema,
  siteBackupListSchema,
  siteParamsSchema,
} from "../../../../contract/sites.js";
import { formatTimestamp } from "../../../../contract/time.js";
import { findRouter } from "../../../auth/directory.js";
import { HttpError, routerFailure } from "../../http-error.js";
import { callerOf } from "../../plugins/auth.js";
import { methodNotAllowed } from "../../plugins/errors.js";
import { siteNotFound } from "./site-not-found.js";

export interface SiteBackupsOptions {
  /** `""` under `/backup` (the v1 host's `/backup/{siteId}`), `"/backups"` under `/sites`. */
  readonly suffix: "" | "/backups";
}

/** Any text: a name that no job's backup has is not found, rather than a 422. */
const oneBackupParamsSchema = siteParamsSchema.extend({ filename: z.string() });

const backupNotFound = (siteId: string, filename: string, why = "no job of it took a backup so named") =>
  new HttpError("not_found", `site ${siteId} has no backup ${JSON.stringify(filename.slice(0, 80))}: ${why}`);

interface BackupRow {
  readonly backup_name: string;
  readonly taken_at: Date;
}

/** The day and the time of day, UTC, as the documented items carry them beside `created_at`. */
function toSiteBackup({ backup_name, taken_at }: BackupRow): SiteBackup {
  const created = formatTimestamp(taken_at);
  const iso = taken_at.toISOString();
  return {
    filename: backup_name,
    size: null,
    date: iso.slice(0, 10),
    time: iso.slice(11, 19),
    created_at: created,
  };
}

/** `X-View` asks for the export as text/plain; absent, or false/0, the JSON `{content}`. */
function wantsText(value: string | string[] | undefined): boolean {
  const text = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
  return text !== undefined && text !== "" && text !== "false" && text !== "0";
}

/**
 * GET `/backup/:siteId` and `/backup/:siteId/:filename` (and `/sites/:siteId/backups[/...]`): the backups the
 * site's jobs took before their scripts (`make_backup`), newest first, and one's export text. The service keeps
 * each job's backup name (`associated_backup`, which is the file name: it has no `/`), and the backup itself
 * stays on the router, so its text is read from there, as the portal's download does; `size` is therefore not
 * known in the list and is null. A backup the router no longer holds is a 404 naming why; an offline router the
 * synchronous routes' 503.
 */
const siteBackups: FastifyPluginAsyncZod<SiteBackupsOptions> = async (app, { suffix }) => {
  const listUrl = `/:siteId${suffix}`;
  const oneUrl = `/:siteId${suffix}/:filename`;

  app.get(
    listUrl,
    { schema: { params: siteParamsSchema, response: { 200: siteBackupListSchema } } },
    async (request) => {
      const { teamId } = callerOf(request);
      const { siteId } = request.params;
      if (!(await findRouter(app.db, teamId, siteId))) throw siteNotFound(siteId);
      const { rows } = await app.db.query<BackupRow>(
        `SELECT backup_name, COALESCE(started_at, created_at) AS taken_at FROM jobs
        WHERE router_id = $1 AND team_id = $2 AND backup_name IS NOT NULL
        ORDER BY taken_at DESC, seq_id DESC`,
        [siteId, teamId],
      );
      return rows.map(toSiteBackup);
    },
  );

  app.get(oneUrl, { schema: { params: oneBackupParamsSchema } }, async (request, reply) => {
    const { teamId } = callerOf(request);
    const { siteId, filename } = request.params;
    const router = await findRouter(app.db, teamId, siteId);
    if (!router) throw siteNotFound(siteId);
    const { rows } = await app.db.query<{ backup_name: string }>(
      "SELECT backup_name FROM jobs WHERE router_id = $1 AND team_id = $2 AND backup_name = $3 LIMIT 1",
      [siteId, teamId, filename],
    );
    if (rows.length === 0) throw backupNotFound(siteId, filename);
    const content = await app.routers
      .readBackup(router, filename, app.config.syncTimeoutMs)
      .catch((error: unknown) => {
        if (error instanceof RouterCommandError)
          throw backupNotFound(siteId, filename, `the router no longer holds it (${error.message})`);
        return routerFailure(error);
      });
    if (wantsText(request.headers["x-view"])) return reply.type("text/plain; charset=utf-8").send(content);
    return reply.send(siteBackupContentSchema.parse({ content }));
  });
  methodNotAllowed(app, listUrl, ["GET"]);
  methodNotAllowed(app, oneUrl, ["GET"]);
};

export default siteBackups;
