/**
 * The device back end over RouterOS's REST API (`transport: "rest"`) against a simulated device's HTTPS REST
 * server on loopback (rest-front-end.ts behind rest-server.ts), pinned by its certificate's fingerprint: the
 * same guarantees as over the API (device-backend.test.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { DeviceEndpoint } from "../../../src/contract/routers/device-endpoint.js";
import { RouterCommandError, RouterUnreachableError } from "../../../src/contract/routers/router-backend.js";
import type { CommandHandler } from "../../../src/routeros/api/server.js";
import { certificateFingerprint } from "../../../src/routeros/api/transport.js";
import { apiFrontEnd } from "../../../src/routeros/simulator/adapters/api-front-end.js";
import { selfSignedDeviceCertificate } from "../../../src/routeros/simulator/adapters/device-certificate.js";
import { restFrontEnd } from "../../../src/routeros/simulator/adapters/rest-front-end.js";
import { type RestServer, startRestServer } from "../../../src/routeros/simulator/adapters/rest-server.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { DeviceBackend } from "../../../src/service/routers/device-backend.js";

const ROUTER = "d2000000-0000-4000-8000-000000000001";
const USER = "routerjobs";
const PASSWORD = "rest-Very-Secret-5678";
const certificate = selfSignedDeviceCertificate();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(wrap?: (inner: CommandHandler, server: () => RestServer) => CommandHandler) {
  const router = new SimulatedRouter({ name: "rest-router" });
  const tls = await certificate;
  const inner = apiFrontEnd(router, { pingIntervalMs: 5 });
  let server: RestServer | undefined;
  const logins: string[] = [];
  server = await startRestServer({
    tls,
    authenticate: (user, password) => {
      logins.push(user);
      return user === USER && password === PASSWORD;
    },
    handler: restFrontEnd(wrap ? wrap(inner, () => server as RestServer) : inner),
  });
  const started = server;
  cleanups.push(() => started.close());
  const backend = new DeviceBackend({ jobPollMs: 5, probeIntervalMs: 60_000 });
  cleanups.push(() => backend.detach(ROUTER));
  const endpoint: DeviceEndpoint = {
    transport: "rest",
    host: server.host,
    port: server.port,
    user: USER,
    password: PASSWORD,
    tls: { fingerprint: certificateFingerprint(tls.cert) },
  };
  await backend.attach(ROUTER, { name: "edge", endpoint });
  return { router, backend, endpoint, logins };
}

const identity = (router: SimulatedRouter) => router.table("system-identity").items[0]?.values.name;

describe("the device back end over REST", () => {
  it("is online after attach and answers a synchronous call with the service's keys", async () => {
    const { backend } = await setUp();
    expect(backend.isOnline(ROUTER)).toBe(true);
    expect(await backend.command(ROUTER, "/interface/print", "=.proplist=.id,name ?name=ether1")).toEqual([
      { id: expect.stringMatching(/^\*/), name: "ether1" },
    ]);
    const refused = await backend
      .command(ROUTER, "/ip/address/add", "=address=nonsense =interface=ether1")
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RouterCommandError);
  });

  it("takes the backup first, runs the job under the wrapper, reads its outcome from the router, removes the entry", async () => {
    const { router, backend } = await setUp();
    expect(await backend.backup(ROUTER, "routerjobs-job-1")).toBe("routerjobs-job-1.rsc");
    expect(await backend.readBackup(ROUTER, "routerjobs-job-1.rsc")).toMatch(/^# RouterOS 7\.24/);
    const outcome = await backend.runScript(ROUTER, "/system identity set name=from-rest", {
      jobName: "routerjobs-job-1",
    });
    expect(outcome).toEqual({ ok: true, output: "" });
    expect(identity(router)).toBe("from-rest");
    expect(router.table("system-script").items).toEqual([]);
  });

  it("reports a failing script with the router's text and line", async () => {
    const { backend } = await setUp();
    const outcome = await backend.runScript(
      ROUTER,
      ":put start\n/ip address add address=x interface=ether1",
      {
        jobName: "routerjobs-job-2",
      },
    );
    expect(outcome).toMatchObject({ ok: false, line: 2 });
  });

  it("finds the outcome after the connection drops while the router takes the job, and runs the script once", async () => {
    const { router, backend } = await setUp((inner, server) => async (command) => {
      const result = await inner(command);
      if (command.path === "/execute" && !command.attributes.has("as-string")) {
        // The answer to the job's start never arrives: the connection ends first.
        server().dropSessions();
      }
      return result;
    });
    // Each run of the script appends one x: a script started twice would leave two.
    const counting = ':global restJobRuns; :set restJobRuns ($restJobRuns . "x")';
    const outcome = await backend.runScript(ROUTER, `${counting}\n/system identity set name=after-drop`, {
      jobName: "routerjobs-job-3",
    });
    expect(outcome.ok).toBe(true);
    expect(identity(router)).toBe("after-drop");
    expect(await router.runSource(":global restJobRuns; :put $restJobRuns")).toEqual(["x"]);
  });

  it("is offline with a wrong password or a certificate that does not match the pin, and says why without the password", async () => {
    const { router, endpoint, logins } = await setUp();
    const before = logins.length;
    for (const wrong of [
      { ...endpoint, password: "not-the-password" },
      { ...endpoint, tls: { fingerprint: `sha256:${"AB:".repeat(31)}AB` } },
    ]) {
      const backend = new DeviceBackend({ probeIntervalMs: 60_000 });
      await backend.attach(ROUTER, { name: "edge", endpoint: wrong });
      expect(backend.isOnline(ROUTER)).toBe(false);
      const error = await backend.command(ROUTER, "/system/identity/print").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RouterUnreachableError);
      expect(String((error as Error).message)).not.toContain(PASSWORD);
      expect(String((error as Error).message)).not.toContain("not-the-password");
      await backend.detach(ROUTER);
    }
    // The wrong password was tried (twice: attach's probe and the command); the wrong pin sent nothing.
    expect(logins.length - before).toBe(2);
    expect(identity(router)).toBe("rest-router");
  });
});
