import type { FastifyInstance } from "fastify";
import { notFound } from "../../plugins/errors.js";
import siteBackups from "./backups.js";
import siteCommands from "./commands.js";
import siteJobs from "./jobs.js";
import siteJob from "./one-job.js";

/**
 * The sites API (`sdx` profile, docs/service.md) beside the spec's `/api`: the same jobs and routers, the same
 * bearer tokens, team scoping, rate limit (one budget per key across both profiles) and error envelope.
 * `/sites/{id}/jobs` (and one job, `/sites/{id}/jobs/{jobId}`) has the documented alias `/site/{id}/job`; the
 * synchronous endpoint has none. A site's backups are `/backup/{id}[/{filename}]` (the v1 host's) and
 * `/sites/{id}/backups[/{filename}]` (the older edition's).
 */
export default async function sites(app: FastifyInstance): Promise<void> {
  for (const [prefix, segment] of [
    ["/sites", "jobs"],
    ["/site", "job"],
  ] as const) {
    await app.register(
      async (scope) => {
        scope.addHook("onRequest", scope.authenticate);
        scope.addHook("onRequest", scope.rateLimit);
        // As under /api: an unknown path here is authenticated and counted, and says it is unknown.
        scope.setNotFoundHandler(notFound);
        await scope.register(siteJobs, { segment });
        await scope.register(siteJob, { segment });
        if (segment === "jobs") {
          await scope.register(siteCommands);
          await scope.register(siteBackups, { suffix: "/backups" });
        }
      },
      { prefix },
    );
  }
  await app.register(
    async (scope) => {
      scope.addHook("onRequest", scope.authenticate);
      scope.addHook("onRequest", scope.rateLimit);
      scope.setNotFoundHandler(notFound);
      await scope.register(siteBackups, { suffix: "" });
    },
    { prefix: "/backup" },
  );
}
