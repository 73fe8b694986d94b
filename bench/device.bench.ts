/**
 * A router driven over the RouterOS API (the device back end, TLS on loopback to a simulated device), and over
 * its REST API (HTTPS on loopback, the same router behind it), against the same router driven in-process (the
 * simulated back end), in one run: synchronous-call latency and jobs per second. ratio = device / in-process, so it is the cost of the protocol, TLS and the job wrapper (upload,
 * /execute, read-back, remove), not of RouterOS itself. Connections per router are counted at the device.
 */

import type { RouterBackend } from "../src/contract/routers/router-backend.js";
import { startRouterApiServer } from "../src/routeros/api/server.js";
import { certificateFingerprint } from "../src/routeros/api/transport.js";
import { apiFrontEnd } from "../src/routeros/simulator/adapters/api-front-end.js";
import { selfSignedDeviceCertificate } from "../src/routeros/simulator/adapters/device-certificate.js";
import { restFrontEnd } from "../src/routeros/simulator/adapters/rest-front-end.js";
import { startRestServer } from "../src/routeros/simulator/adapters/rest-server.js";
import { SimulatedBackend } from "../src/routeros/simulator/adapters/service-backend.js";
import { SimulatedRouter } from "../src/routeros/simulator/router.js";
import { DeviceBackend } from "../src/service/routers/device-backend.js";
import { type BenchReport, opsPerSecond, percentile, round } from "./harness.js";

const ROUTER = "d1000000-0000-4000-8000-000000000001";
const SCRIPT =
  "/ip firewall address-list add list=bench address=10.0.0.1\n/ip firewall address-list remove [find list=bench]";

async function latencies(backend: RouterBackend, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await backend.command(ROUTER, "/system/identity/print");
    times.push(performance.now() - start);
  }
  return times;
}

export async function run(): Promise<BenchReport> {
  const simulated = new SimulatedBackend();
  await simulated.attach(ROUTER, { name: "bench" });

  const tls = await selfSignedDeviceCertificate();
  const router = new SimulatedRouter({ name: "bench" });
  let logins = 0;
  const server = await startRouterApiServer({
    tls,
    authenticate: () => {
      logins++;
      return true;
    },
    handler: apiFrontEnd(router),
  });
  let restLogins = 0;
  const restServer = await startRestServer({
    tls,
    authenticate: () => {
      restLogins++;
      return true;
    },
    handler: restFrontEnd(apiFrontEnd(router)),
  });
  const overRest = new DeviceBackend({ jobPollMs: 1, probeIntervalMs: 3_600_000 });
  await overRest.attach(ROUTER, {
    name: "bench",
    endpoint: {
      transport: "rest",
      host: restServer.host,
      port: restServer.port,
      user: "bench",
      password: "bench-password",
      tls: { fingerprint: certificateFingerprint(tls.cert) },
    },
  });
  const device = new DeviceBackend({ jobPollMs: 1, probeIntervalMs: 3_600_000 });
  await device.attach(ROUTER, {
    name: "bench",
    endpoint: {
      host: server.host,
      port: server.port,
      user: "bench",
      password: "bench-password",
      tls: { fingerprint: certificateFingerprint(tls.cert) },
    },
  });
  try {
    await latencies(simulated, 50);
    await latencies(device, 50);
    await latencies(overRest, 50);
    const inProcess = percentile(await latencies(simulated, 500), 50);
    const overApi = percentile(await latencies(device, 500), 50);
    const syncOverRest = percentile(await latencies(overRest, 500), 50);
    let job = 0;
    const jobsInProcess = await opsPerSecond(() => simulated.runScript(ROUTER, SCRIPT), 2000);
    const jobsOverApi = await opsPerSecond(
      () => device.runScript(ROUTER, SCRIPT, { jobName: `routerjobs-job-${++job}` }),
      2000,
    );
    const jobsOverRest = await opsPerSecond(
      () => overRest.runScript(ROUTER, SCRIPT, { jobName: `routerjobs-job-${++job}` }),
      2000,
    );
    return {
      title: "a router over the RouterOS API against in-process",
      metrics: {
        syncP50InProcessMs: round(inProcess, 3),
        syncP50OverApiMs: round(overApi, 3),
        syncRatio: round(overApi / inProcess, 1),
        jobsPerSecInProcess: round(jobsInProcess, 1),
        jobsPerSecOverApi: round(jobsOverApi, 1),
        jobRatio: round(jobsInProcess / jobsOverApi, 1),
        connectionsPerRouter: logins,
        syncP50OverRestMs: round(syncOverRest, 3),
        syncRestRatio: round(syncOverRest / inProcess, 1),
        jobsPerSecOverRest: round(jobsOverRest, 1),
        jobRestRatio: round(jobsInProcess / jobsOverRest, 1),
        restRequests: restLogins,
      },
      lines: [
        `synchronous call p50: ${round(overApi, 3)} ms over the API vs ${round(inProcess, 3)} ms in-process (${round(overApi / inProcess, 1)}x)`,
        `jobs: ${round(jobsOverApi, 1)}/s over the API vs ${round(jobsInProcess, 1)}/s in-process (${round(jobsInProcess / jobsOverApi, 1)}x slower; ${job} jobs)`,
        `connections opened for the router: ${logins} (one, reused)`,
        `over REST: synchronous call p50 ${round(syncOverRest, 3)} ms (${round(syncOverRest / inProcess, 1)}x), jobs ${round(jobsOverRest, 1)}/s (${round(jobsInProcess / jobsOverRest, 1)}x slower); ${restLogins} requests, each with its basic auth`,
      ],
    };
  } finally {
    await device.detach(ROUTER);
    await overRest.detach(ROUTER);
    await server.close();
    await restServer.close();
  }
}
