/**
 * A router driven over the RouterOS API (the device back end, TLS on loopback to a simulated device), over its
 * REST API (HTTPS on loopback) and over its console on SSH (loopback, the host key pinned), the same router
 * behind all three, against the same router driven in-process (the simulated back end), in one run:
 * synchronous-call latency, jobs per second and the full configuration read (`/export`, what `plan` and `import`
 * read). ratio = device / in-process, so it is the cost of the protocol, its encryption and the job wrapper
 * (upload, /execute, read-back, remove), not of RouterOS itself. Connections per router are counted at the device.
 */

import type { RouterBackend } from "../src/contract/routers/router-backend.js";
import { startRouterApiServer } from "../src/routeros/api/server.js";
import { certificateFingerprint } from "../src/routeros/api/transport.js";
import { apiFrontEnd } from "../src/routeros/simulator/adapters/api-front-end.js";
import { selfSignedDeviceCertificate } from "../src/routeros/simulator/adapters/device-certificate.js";
import { restFrontEnd } from "../src/routeros/simulator/adapters/rest-front-end.js";
import { startRestServer } from "../src/routeros/simulator/adapters/rest-server.js";
import { SimulatedBackend } from "../src/routeros/simulator/adapters/service-backend.js";
import { startSshFrontEnd } from "../src/routeros/simulator/adapters/ssh-front-end.js";
import { newHostKey } from "../src/routeros/simulator/adapters/ssh-keys.js";
import { SimulatedRouter } from "../src/routeros/simulator/router.js";
import { DeviceBackend } from "../src/service/routers/device-backend.js";
import { type BenchReport, opsPerSecond, percentile, round } from "./harness.js";

const ROUTER = "d1000000-0000-4000-8000-000000000001";
const SCRIPT =
  "/ip firewall address-list add list=bench address=10.0.0.1\n/ip firewall address-list remove [find list=bench]";

/** A named property: over SSH a print reads only what it names, and every transport is asked the same. */
async function latencies(
  backend: RouterBackend,
  count: number,
  command = "/system/identity/print",
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await backend.command(ROUTER, command, command === "/export" ? "" : "=.proplist=name");
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
  const hostKey = newHostKey();
  let sshCommands = 0;
  const sshServer = await startSshFrontEnd(router, {
    host: "127.0.0.1",
    port: 0,
    hostKey,
    user: "bench",
    password: "bench-password",
    authorizedKeys: [],
    afterCommand: async () => {
      sshCommands++;
    },
  });
  const overSsh = new DeviceBackend({ jobPollMs: 1, probeIntervalMs: 3_600_000 });
  await overSsh.attach(ROUTER, {
    name: "bench",
    endpoint: {
      transport: "ssh",
      host: sshServer.host,
      port: sshServer.port,
      user: "bench",
      password: "bench-password",
      sshHostKey: hostKey.fingerprint,
    },
  });
  // A configuration of some size for the export reads: 200 address-list entries.
  await router.runScript(
    ':for i from=1 to=200 do={ /ip firewall address-list add list=exported address="10.1.$[:tostr ($i / 250)].$[:tostr ($i % 250)]" }',
  );
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
    await latencies(overSsh, 50);
    const syncOverSsh = percentile(await latencies(overSsh, 500), 50);
    const exportInProcess = percentile(await latencies(simulated, 50, "/export"), 50);
    const exportOverApi = percentile(await latencies(device, 50, "/export"), 50);
    const exportOverRest = percentile(await latencies(overRest, 50, "/export"), 50);
    const exportOverSsh = percentile(await latencies(overSsh, 50, "/export"), 50);
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
    const sshBefore = sshCommands;
    const jobsOverSsh = await opsPerSecond(
      () => overSsh.runScript(ROUTER, SCRIPT, { jobName: `routerjobs-job-${++job}` }),
      2000,
    );
    const sshJobCommands = sshCommands - sshBefore;
    return {
      title: "a router over the RouterOS API, REST and SSH against in-process",
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
        syncP50OverSshMs: round(syncOverSsh, 3),
        syncSshRatio: round(syncOverSsh / inProcess, 1),
        jobsPerSecOverSsh: round(jobsOverSsh, 1),
        jobSshRatio: round(jobsInProcess / jobsOverSsh, 1),
        sshJobCommands,
        exportP50InProcessMs: round(exportInProcess, 3),
        exportP50OverApiMs: round(exportOverApi, 3),
        exportP50OverRestMs: round(exportOverRest, 3),
        exportP50OverSshMs: round(exportOverSsh, 3),
      },
      lines: [
        `synchronous call p50: ${round(overApi, 3)} ms over the API vs ${round(inProcess, 3)} ms in-process (${round(overApi / inProcess, 1)}x)`,
        `jobs: ${round(jobsOverApi, 1)}/s over the API vs ${round(jobsInProcess, 1)}/s in-process (${round(jobsInProcess / jobsOverApi, 1)}x slower; ${job} jobs)`,
        `connections opened for the router: ${logins} (one, reused)`,
        `over REST: synchronous call p50 ${round(syncOverRest, 3)} ms (${round(syncOverRest / inProcess, 1)}x), jobs ${round(jobsOverRest, 1)}/s (${round(jobsInProcess / jobsOverRest, 1)}x slower); ${restLogins} requests, each with its basic auth`,
        `over SSH: synchronous call p50 ${round(syncOverSsh, 3)} ms (${round(syncOverSsh / inProcess, 1)}x), jobs ${round(jobsOverSsh, 1)}/s (${round(jobsInProcess / jobsOverSsh, 1)}x slower); ${sshJobCommands} console lines for the jobs, one exec channel each`,
        `/export (200 address-list entries) p50: in-process ${round(exportInProcess, 3)} ms, API ${round(exportOverApi, 3)} ms (file written, read, removed), REST ${round(exportOverRest, 3)} ms (the same three), SSH ${round(exportOverSsh, 3)} ms (one console command)`,
      ],
    };
  } finally {
    await device.detach(ROUTER);
    await overRest.detach(ROUTER);
    await overSsh.detach(ROUTER);
    await sshServer.close();
    await server.close();
    await restServer.close();
  }
}
