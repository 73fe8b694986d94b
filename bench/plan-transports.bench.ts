/**
 * What `plan` and `import` read first from each router, its `/export`, for 100 routers of a realistic size
 * (an RB5009 with its factory defaults, 40 address-list entries, 20 filter rules, a VLAN bridge), read over each
 * transport of the device back end (the RouterOS API with TLS, REST over HTTPS, the console over SSH, each on
 * loopback to a simulated device) against the same routers read in-process (the simulated back end), four
 * routers at a time as `plan` reads them. The service's own HTTP hop is left out: it is the same for every
 * transport. ratio = transport / in-process.
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
import { type BenchReport, round } from "./harness.js";

const ROUTERS = Number(process.env.PLAN_TRANSPORT_ROUTERS ?? 100);
/** `plan`'s default number of routers read at once (src/deploy/plan/plan.ts). */
const AT_ONCE = 4;
const MODEL = "RB5009";
const PASSWORD = "bench-password";

/** The configuration each router carries beyond its defaults; `n` makes each router's own. */
const configuration = (n: number) =>
  [
    `/system identity set name=site-${n}`,
    `:for i from=1 to=40 do={ /ip firewall address-list add list=partners address="10.${n % 250}.$i.0/24" comment="partner $i" }`,
    ':for i from=1 to=20 do={ /ip firewall filter add chain=forward action=accept protocol=tcp dst-port=(8000 + $i) comment="service $i" }',
    "/interface bridge add name=vlans vlan-filtering=yes",
    "/interface vlan add name=guest vlan-id=20 interface=vlans",
    `/ip address add address=192.168.${n % 250}.1/24 interface=guest`,
  ].join("\n");

const routerId = (n: number) => `d2000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

async function readAll(backend: RouterBackend, atOnce = AT_ONCE): Promise<number> {
  const ids = Array.from({ length: ROUTERS }, (_, n) => routerId(n));
  const started = performance.now();
  let bytes = 0;
  const worker = async () => {
    for (let id = ids.shift(); id !== undefined; id = ids.shift()) {
      const records = await backend.command(id, "/export", "");
      bytes += String(records[0]?.ret ?? "").length;
    }
  };
  await Promise.all(Array.from({ length: atOnce }, worker));
  if (bytes === 0) throw new Error("no export was read");
  return performance.now() - started;
}

export async function run(): Promise<BenchReport> {
  const tls = await selfSignedDeviceCertificate();
  const hostKey = newHostKey();
  const simulated = new SimulatedBackend();
  const api = new DeviceBackend({ jobPollMs: 1, probeIntervalMs: 3_600_000 });
  const rest = new DeviceBackend({ jobPollMs: 1, probeIntervalMs: 3_600_000 });
  const ssh = new DeviceBackend({ jobPollMs: 1, probeIntervalMs: 3_600_000 });
  const closers: (() => Promise<void>)[] = [];
  try {
    for (let n = 0; n < ROUTERS; n++) {
      const id = routerId(n);
      const router = new SimulatedRouter({ name: `site-${n}`, model: MODEL });
      await router.runScript(configuration(n));
      // The in-process router starts from the device's state, so both exports are the same.
      await simulated.attach(id, { name: `site-${n}`, state: router.snapshot() });
      const handler = apiFrontEnd(router);
      const apiServer = await startRouterApiServer({ tls, authenticate: () => true, handler });
      const restServer = await startRestServer({
        tls,
        authenticate: () => true,
        handler: restFrontEnd(handler),
      });
      const sshServer = await startSshFrontEnd(router, {
        host: "127.0.0.1",
        port: 0,
        hostKey,
        user: "bench",
        password: PASSWORD,
        authorizedKeys: [],
      });
      closers.push(apiServer.close, restServer.close, sshServer.close);
      const fingerprint = certificateFingerprint(tls.cert);
      const common = { user: "bench", password: PASSWORD };
      await api.attach(id, {
        name: `site-${n}`,
        endpoint: { ...common, host: apiServer.host, port: apiServer.port, tls: { fingerprint } },
      });
      await rest.attach(id, {
        name: `site-${n}`,
        endpoint: {
          ...common,
          transport: "rest",
          host: restServer.host,
          port: restServer.port,
          tls: { fingerprint },
        },
      });
      await ssh.attach(id, {
        name: `site-${n}`,
        endpoint: {
          ...common,
          transport: "ssh",
          host: sshServer.host,
          port: sshServer.port,
          sshHostKey: hostKey.fingerprint,
        },
      });
    }
    const sample = await simulated.command(routerId(0), "/export", "");
    const exportBytes = String(sample[0]?.ret ?? "").length;
    // A first read of each opens the connections (one router at a time: 100 SSH handshakes at once outlast the
    // connect timeout on a loaded machine) and warms the code; the second is measured, in turn.
    for (const backend of [simulated, api, rest, ssh]) await readAll(backend, 1);
    const inProcess = await readAll(simulated);
    const overApi = await readAll(api);
    const overRest = await readAll(rest);
    const overSsh = await readAll(ssh);
    const per = (ms: number) => round(ms / ROUTERS, 2);
    const ratio = (ms: number) => round(ms / inProcess, 1);
    return {
      title: `plan's first read: /export of ${ROUTERS} routers (${MODEL} defaults + ${exportBytes} B of export each), ${AT_ONCE} at a time, per transport`,
      metrics: {
        routers: ROUTERS,
        exportBytes,
        inProcessMs: round(inProcess, 1),
        apiMs: round(overApi, 1),
        restMs: round(overRest, 1),
        sshMs: round(overSsh, 1),
        apiRatio: ratio(overApi),
        restRatio: ratio(overRest),
        sshRatio: ratio(overSsh),
      },
      lines: [
        `${ROUTERS} routers, an export of ${exportBytes} B each, ${AT_ONCE} read at a time (connections open)`,
        `in-process ${round(inProcess, 1)} ms (${per(inProcess)} ms a router)`,
        `API ${round(overApi, 1)} ms (${per(overApi)} ms a router, ${ratio(overApi)}x: /export file=, read, remove)`,
        `REST ${round(overRest, 1)} ms (${per(overRest)} ms a router, ${ratio(overRest)}x: the same three)`,
        `SSH ${round(overSsh, 1)} ms (${per(overSsh)} ms a router, ${ratio(overSsh)}x: one console command)`,
      ],
    };
  } finally {
    for (let n = 0; n < ROUTERS; n++) {
      for (const backend of [simulated, api, rest, ssh]) await backend.detach(routerId(n));
    }
    await Promise.all(closers.map((close) => close()));
  }
}
