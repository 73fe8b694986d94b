import type { AddressInfo } from "node:net";
import { Devices, type JobEvent } from "./device.js";
import { createStandInServer, type LoggedRequest } from "./http-server.js";
import { type Job, type JobStatus, JobStore, statusOf } from "./jobs.js";
import { Notifier } from "./notifier.js";
import { resolveOptions, type StandInOptions } from "./options.js";
import { SlidingWindow } from "./rate-limit.js";
import { sitesApiRoutes } from "./sites-api.js";
import { specApiRoutes } from "./spec-api.js";
import { loopbackCertificate } from "./tls.js";

export type { StandInOptions } from "./options.js";

/**
 * Starts a stand-in of the public job service (both API generations over one set of jobs), written from
 * ALTOSTRAT.md and the spec alone. Everything a test needs to observe or steer is on the returned object.
 */
export async function startStandIn(input: StandInOptions) {
  const options = resolveOptions(input);
  const jobs = new JobStore();
  const devices = new Devices(options.holdJobs);
  const notifier = new Notifier(options.notificationShape, options.notifyRetryDelaysMs, options.notifyCa);
  devices.on("job", (event) => notifier.onJobEvent(event));
  const logged: LoggedRequest[] = [];

  const submit = (job: Job) => {
    devices.emitJob("submitted", job);
    // Without acknowledgement the job is completed at once, and still runs on the device later.
    if (!job.needsAcknowledgement) {
      job.completedAt = job.createdAt;
      devices.emitJob("completed", job);
    }
    devices.enqueue(job);
  };
  // Acknowledgements held back (holdAcknowledgements) until releaseAcknowledgements(), which ends the holding.
  let holdingAcks = options.holdAcknowledgements;
  const heldAcks: { job: Job; release: () => void }[] = [];
  const ackWaiters: { siteId: string | undefined; resolve: () => void }[] = [];
  const beforeAcknowledgement = (job: Job) =>
    holdingAcks
      ? new Promise<void>((release) => {
          heldAcks.push({ job, release });
          for (const waiter of ackWaiters.filter((w) => w.siteId === undefined || w.siteId === job.siteId)) {
            ackWaiters.splice(ackWaiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        })
      : Promise.resolve();
  const tls = options.tls ? await loopbackCertificate() : undefined;
  const server = createStandInServer({
    routes: [
      ...specApiRoutes({
        jobs,
        devices,
        submit,
        needsAckDefault: options.needsAckDefault,
        legacyJobList: options.legacyJobList,
        beforeAcknowledgement,
      }),
      ...sitesApiRoutes({
        jobs,
        devices,
        submit,
        oneJobPaths: options.oneJobPaths,
        ...(options.jobPageSize === undefined ? {} : { jobPageSize: options.jobPageSize }),
      }),
    ],
    teams: options.teams,
    limiter: new SlidingWindow(options.rateLimitMax, options.rateLimitWindowMs),
    retryAfterHeader: options.retryAfterHeader,
    ...(tls ? { tls } : {}),
    onRequest: (entry) => logged.push(entry),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const ticker = setInterval(() => devices.tick(), options.tickMs);
  ticker.unref();
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;

  /** Resolves with the first job event that satisfies the predicate; rejects after timeoutMs. */
  const waitFor = (predicate: (event: JobEvent) => boolean, timeoutMs = 10_000): Promise<JobEvent> =>
    new Promise((resolve, reject) => {
      const listener = (event: JobEvent) => {
        if (!predicate(event)) return;
        finish();
        resolve(event);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`stand-in: no matching job event within ${timeoutMs} ms`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        devices.off("job", listener);
      };
      devices.on("job", listener);
    });

  return {
    url: `${options.tls ? "https" : "http"}://${host}:${port}`,
    /** PEM to trust when `tls` is on. */
    ca: tls?.cert,
    waitFor,
    onceJobStarted: (siteId?: string) =>
      waitFor((event) => event.kind === "running" && (siteId === undefined || event.job.siteId === siteId)),
    /** Resolves when the job's status is `status`: at once if it is already, else on a later event. */
    waitForStatus: async (jobId: string, status: JobStatus) => {
      const reached = () => {
        const job = jobs.get(jobId);
        return job !== undefined && statusOf(job) === status;
      };
      if (!reached()) await waitFor(reached);
    },
    /** Runs the scheduler now, as a tick would. */
    tick: () => devices.tick(),
    release: (jobId?: string) => devices.release(jobId),
    /** Releases every held job and holds no more (a test's gate opened for good). */
    stopHolding: () => devices.stopHolding(),
    /** Holds the later jobs of one site (applied on its device, their outcome held) until releaseSite(). */
    holdSite: (siteId: string) => devices.holdSite(siteId),
    releaseSite: (siteId: string) => devices.releaseSite(siteId),
    /** Resolves once a submission (to `siteId`, if given) is created and its answer held (holdAcknowledgements). */
    acknowledgementHeld: (siteId?: string) =>
      new Promise<void>((resolve) => {
        if (heldAcks.some(({ job }) => siteId === undefined || job.siteId === siteId)) resolve();
        else ackWaiters.push({ siteId, resolve });
      }),
    /** Answers every held submission and stops holding: later submissions are answered at once. */
    releaseAcknowledgements: () => {
      holdingAcks = false;
      for (const { release } of heldAcks.splice(0)) release();
    },
    deleteJob: (jobId: string) => {
      const job = jobs.get(jobId);
      return job !== undefined && devices.delete(job);
    },
    job: (jobId: string) => {
      const job = jobs.get(jobId);
      return job && { ...job, description: job.description ?? "", status: statusOf(job) };
    },
    // A job without a description (the sites API's optional X-Description) is listed null, shown here as "".
    jobs: (siteId: string) =>
      jobs
        .forSite(siteId)
        .map((job) => ({ ...job, description: job.description ?? "", status: statusOf(job) })),
    runs: (siteId: string) => devices.runs(siteId),
    deviceLog: (siteId: string) => devices.log(siteId),
    requests: () => [...logged],
    notifications: () => notifier.deliveries(),
    notificationsSettled: () => notifier.settled(),
    close: async () => {
      clearInterval(ticker);
      holdingAcks = false;
      for (const { release } of heldAcks.splice(0)) release();
      devices.release();
      await notifier.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type StandIn = Awaited<ReturnType<typeof startStandIn>>;
