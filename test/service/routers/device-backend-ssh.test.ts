/**
 * The device back end over SSH (`transport: "ssh"`) against a simulated device's console on loopback
 * (ssh-front-end.ts), pinned by its host key's fingerprint: the same guarantees as over the API
 * (device-backend.test.ts) and REST (device-backend-rest.test.ts), and `/export` read as the console prints it.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { DeviceEndpoint } from "../../../src/contract/routers/device-endpoint.js";
import { RouterCommandError, RouterUnreachableError } from "../../../src/contract/routers/router-backend.js";
import {
  type SshFrontEnd,
  startSshFrontEnd,
} from "../../../src/routeros/simulator/adapters/ssh-front-end.js";
import { newHostKey } from "../../../src/routeros/simulator/adapters/ssh-keys.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { DeviceBackend } from "../../../src/service/routers/device-backend.js";
import { RESUMED_WITHOUT_ENTRY } from "../../../src/service/routers/job-entry.js";

const ROUTER = "d3000000-0000-4000-8000-000000000001";
const USER = "routerjobs";
const PASSWORD = "ssh-Very-Secret-9012";
const hostKey = newHostKey();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A router behind its SSH console; `onLine` sees each console line the router runs, after it ran and before
 * its output goes back.
 */
async function setUp(onLine?: (line: string, ssh: () => SshFrontEnd) => void) {
  const router = new SimulatedRouter({ name: "ssh-router" });
  const logins: string[] = [];
  if (onLine) {
    const run = router.runScript.bind(router);
    router.runScript = async (source, signal) => {
      const outcome = await run(source, signal);
      onLine(source, () => ssh);
      return outcome;
    };
  }
  const ssh = await startSshFrontEnd(router, {
    host: "127.0.0.1",
    port: 0,
    hostKey,
    user: USER,
    password: PASSWORD,
    authorizedKeys: [],
    afterCommand: async () => {
      logins.push("command");
    },
  });
  cleanups.push(() => ssh.close());
  const backend = new DeviceBackend({ jobPollMs: 5, probeIntervalMs: 60_000 });
  cleanups.push(() => backend.detach(ROUTER));
  const endpoint: DeviceEndpoint = {
    transport: "ssh",
    host: ssh.host,
    port: ssh.port,
    user: USER,
    password: PASSWORD,
    sshHostKey: hostKey.fingerprint,
  };
  await backend.attach(ROUTER, { name: "edge", endpoint });
  return { router, backend, endpoint, ssh, logins };
}

const identity = (router: SimulatedRouter) => router.table("system-identity").items[0]?.values.name;

describe("the device back end over SSH", () => {
  it("is online after attach and answers a synchronous call with the service's keys; a refusal is the router's text", async () => {
    const { backend } = await setUp();
    expect(backend.isOnline(ROUTER)).toBe(true);
    expect(
      await backend.command(ROUTER, "/interface/print", "=.proplist=.id,name,default-name ?name=ether1"),
    ).toEqual([{ id: expect.stringMatching(/^\*/), name: "ether1", default_name: "ether1" }]);
    const refused = await backend
      .command(ROUTER, "/ip/address/add", "=address=nonsense =interface=ether1")
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RouterCommandError);
    expect((refused as Error).message).toMatch(/invalid value for argument address/);
    expect(await backend.command(ROUTER, "/system/identity/print", "=.proplist=name")).toEqual([
      { name: "ssh-router" },
    ]);
    // A print that names no properties cannot be read back from the console: refused, saying what to send.
    await expect(backend.command(ROUTER, "/interface/print")).rejects.toThrow(
      /over SSH a print names the properties it reads \(=\.proplist=name,\.\.\.\)/,
    );
  });

  it("values with line breaks, quotes, `$` and `=` come back as they are", async () => {
    const { backend, router } = await setUp();
    const comment = 'two\nlines "quoted" $notAVariable a=b \\ end';
    await backend.command(ROUTER, "/system/script/add", `=name=tricky =source=:put =comment=${comment}`);
    expect(router.table("system-script").items[0]?.values.comment).toBe(comment);
    expect(await backend.command(ROUTER, "/system/script/print", "=.proplist=comment ?name=tricky")).toEqual([
      { comment },
    ]);
  });

  it("reads /export as the console prints it, the same text the API's file gives", async () => {
    const { backend, router } = await setUp();
    await router.runScript("/ip address add address=10.9.0.1/24 interface=ether2 comment=exported");
    const [read] = await backend.command(ROUTER, "/export");
    expect(read?.ret).toMatch(/^# RouterOS 7\.24/);
    expect(read?.ret).toContain("add address=10.9.0.1/24 comment=exported interface=ether2");
    // No file was written for it.
    expect(router.table("file").items.map((item) => item.values.name)).toEqual(
      expect.not.arrayContaining([expect.stringMatching(/routerjobs-read/)]),
    );
    await router.runScript("/export file=compare");
    // The console ends the text with the line break it prints after every output.
    expect(read?.ret?.replace(/^#.*\n/, "")).toBe(
      `${router.readFile("compare.rsc")?.replace(/^#.*\n/, "")}\n`,
    );
  });

  it("takes the backup first, runs the job under the wrapper, reads its outcome from the router, removes the entry", async () => {
    const { router, backend } = await setUp();
    expect(await backend.backup(ROUTER, "routerjobs-job-1")).toBe("routerjobs-job-1.rsc");
    expect(await backend.readBackup(ROUTER, "routerjobs-job-1.rsc")).toMatch(/^# RouterOS 7\.24/);
    const outcome = await backend.runScript(ROUTER, "/system identity set name=from-ssh", {
      jobName: "routerjobs-job-1",
    });
    expect(outcome).toEqual({ ok: true, output: "" });
    expect(identity(router)).toBe("from-ssh");
    expect(router.table("system-script").items).toEqual([]);
  });

  it("reports a failing script with the router's text and line", async () => {
    const { backend, router } = await setUp();
    const outcome = await backend.runScript(
      ROUTER,
      ":put start\n/ip address add address=x interface=ether1",
      { jobName: "routerjobs-job-2" },
    );
    expect(outcome).toMatchObject({
      ok: false,
      line: 2,
      error: expect.stringMatching(/invalid value.*address.*line 2/),
    });
    expect(router.table("system-script").items).toEqual([]);
  });

  it("finds the outcome after the connection drops while the router takes the job, and runs the script once", async () => {
    let launches = 0;
    const { router, backend } = await setUp((line, ssh) => {
      // The job's start (not the boot marker's `as-string`): the session ends before its answer goes back.
      if (line.includes(":execute script=") && !line.includes("as-string")) {
        launches++;
        ssh().dropSessions();
      }
    });
    const counting = ':global sshJobRuns; :set sshJobRuns ($sshJobRuns . "x")';
    const outcome = await backend.runScript(ROUTER, `${counting}\n/system identity set name=after-drop`, {
      jobName: "routerjobs-job-3",
    });
    expect(outcome.ok).toBe(true);
    expect(launches).toBe(1);
    expect(identity(router)).toBe("after-drop");
    expect(await router.runSource(":global sshJobRuns; :put $sshJobRuns")).toEqual(["x"]);
  });

  it("a resumed job the router has no entry of fails instead of running", async () => {
    const { router, backend } = await setUp();
    const outcome = await backend.runScript(ROUTER, "/system identity set name=twice", {
      jobName: "routerjobs-job-9",
      resumed: true,
    });
    expect(outcome).toMatchObject({ ok: false, error: RESUMED_WITHOUT_ENTRY });
    expect(identity(router)).toBe("ssh-router");
  });

  it("is offline with a wrong password, or a host key that is not the pinned one (naming both keys and the fix, sending nothing)", async () => {
    const { router, endpoint, logins } = await setUp();
    const other = newHostKey();
    const before = logins.length;
    const messages: string[] = [];
    for (const wrong of [
      { ...endpoint, password: "not-the-password" },
      { ...endpoint, sshHostKey: other.fingerprint },
    ]) {
      const backend = new DeviceBackend({ probeIntervalMs: 60_000 });
      await backend.attach(ROUTER, { name: "edge", endpoint: wrong });
      expect(backend.isOnline(ROUTER)).toBe(false);
      const error = await backend
        .command(ROUTER, "/system/identity/print", "=.proplist=name")
        .catch((e) => e);
      expect(error).toBeInstanceOf(RouterUnreachableError);
      const message = String((error as Error).message);
      expect(message).not.toContain(PASSWORD);
      expect(message).not.toContain("not-the-password");
      messages.push(message);
      await backend.detach(ROUTER);
    }
    expect(messages[0]).toMatch(/refused the SSH login of user "routerjobs"/);
    expect(messages[1]).toContain(`SSH host key of 127.0.0.1:${endpoint.port} is ${hostKey.fingerprint}`);
    expect(messages[1]).toContain(`not the pinned ${other.fingerprint}`);
    expect(messages[1]).toMatch(/router add again with the router's --id and --ssh-host-key SHA256:/);
    // Neither ran a command on the router.
    expect(logins.length).toBe(before);
    expect(identity(router)).toBe("ssh-router");
  });
});
