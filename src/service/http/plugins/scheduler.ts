import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { RouterBackend } from "../../../contract/routers/router-backend.js";
import { Notifier } from "../../notifications/notifier.js";
import type { NotifyDestinations } from "../../notifications/notify-destinations.js";
import { readEndpoint, readStoredEndpoint } from "../../routers/endpoints.js";
import { serviceKeyring } from "../../routers/router-secrets.js";
import { RouterCycle } from "../../scheduling/router-cycle.js";
import { Scheduler } from "../../scheduling/scheduler.js";

declare module "fastify" {
  interface FastifyInstance {
    routers: RouterCycle;
    scheduler: Scheduler;
    notifier: Notifier;
    /** Where notifications may go: the notifier checks at connect time, a submission its literal address. */
    notifyDestinations: NotifyDestinations;
  }
}

/**
 * The job machinery: the router cycle (the only user of the back end), the scheduler that runs jobs and the notifier that delivers the
 * outbox. Both start once the app is ready and stop when it closes: running scripts may finish within the
 * shutdown grace period, notifications in flight finish.
 */
export default fp(
  async function jobs(app: FastifyInstance, options: { backend: RouterBackend }) {
    const log = (message: string, fields?: object) => app.log.warn(fields ?? {}, message);
    // PGlite: this process is the only one on the store, so a claim or lease it did not make is a dead one's.
    const exclusive = app.db.kind === "pglite";
    const notifier = new Notifier(app.db, app.config, log);
    const routers = new RouterCycle(options.backend, app.db, {
      // The keyring is loaded only for a router that is a device: a service of simulated routers needs none.
      endpointOf: async (routerId) =>
        (await readStoredEndpoint(app.db, routerId))
          ? readEndpoint(app.db, routerId, await serviceKeyring(app.config))
          : undefined,
    });
    const scheduler = new Scheduler(app.db, routers, {
      tickMs: app.config.tickMs,
      concurrency: app.config.schedulerConcurrency,
      shutdownGraceMs: app.config.shutdownGraceMs,
      jobTimeoutMs: app.config.jobTimeoutMs,
      exclusive,
      onChange: (job) => (job ? notifier.queued(job.notify_url) : notifier.wake()),
      log,
    });
    app.decorate("routers", routers);
    app.decorate("scheduler", scheduler);
    app.decorate("notifier", notifier);
    app.decorate("notifyDestinations", notifier.destinations);
    app.addHook("onReady", async () => {
      await scheduler.start();
      await notifier.start({ exclusive });
    });
    // Scheduler first: a job that finishes during shutdown still queues its notification for the next start.
    app.addHook("onClose", async () => {
      await scheduler.close();
      await notifier.close();
    });
  },
  { name: "jobs", dependencies: ["database"] },
);
