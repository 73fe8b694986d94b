/**
 * A device router's password and the service's log: with the log at its most verbose, every way the password
 * enters the service (add, seed, refused requests, an unusable router key) leaves no trace of it in the log,
 * in an answer or in the key file's error.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newRouterKeyText } from "../../src/service/routers/router-secrets.js";
import { ADMIN_TOKEN, type Answer, startTestService, TEAM_A, type TestService } from "../service/harness.js";

const PASSWORD = "Vx9-never-in-a-log-31337";
const ROUTER = "5e000000-0000-4000-8000-000000000001";
const device = {
  host: "192.0.2.20",
  user: "routerjobs",
  password: PASSWORD,
  tls_fingerprint: `sha256:${"7f".repeat(32)}`,
};

function memoryLog(): { stream: Writable; text: () => string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => lines.join("") };
}

describe("a device router's password never reaches the service's log", () => {
  let dir: string;
  let good: TestService;
  let broken: TestService;
  const goodLog = memoryLog();
  const brokenLog = memoryLog();
  const answers: Answer[] = [];
  const admin = async (svc: TestService, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) => {
    const answer = await svc.call(method, `/admin${path}`, { token: ADMIN_TOKEN, body });
    answers.push(answer);
    return answer;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-device-log-"));
    good = await startTestService({ dataDir: join(dir, "good") }, undefined, {
      logger: { level: "trace", stream: goodLog.stream },
    });
    // A key file that others can read: the service must refuse to use it.
    await writeFile(join(dir, "router-key"), newRouterKeyText(), { mode: 0o644 });
    await chmod(join(dir, "router-key"), 0o644);
    broken = await startTestService({ dataDir: dir }, undefined, {
      logger: { level: "trace", stream: brokenLog.stream },
    });
  });
  afterAll(async () => {
    await good?.close();
    await broken?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("adds, shows, seeds, refuses and forgets device routers", async () => {
    const added = await admin(good, "POST", "/routers", { team_id: TEAM_A, id: ROUTER, name: "d", device });
    expect(added.status).toBe(200);
    expect((await admin(good, "GET", `/routers/${ROUTER}`)).status).toBe(200);
    const seed = { teams: [{ id: TEAM_A, routers: [{ id: ROUTER, name: "d", device }] }] };
    expect((await admin(good, "POST", "/seed", seed)).status).toBe(200);
    for (const bad of [
      { ...device, password: `${PASSWORD}${"!".repeat(300)}` },
      { ...device, passwd: PASSWORD },
      { ...device, plaintext: true },
    ]) {
      expect(
        (await admin(good, "POST", "/routers", { team_id: TEAM_A, name: "x", device: bad })).status,
      ).toBe(422);
    }
    expect((await admin(good, "DELETE", `/routers/${ROUTER}/device`)).status).toBe(200);
    // The key file was created on first use, readable by its owner only.
    expect((await readFile(join(dir, "good", "router-key"), "utf8")).length).toBeGreaterThan(40);
  });

  it("an unusable key file: 503 naming the file and its mode, and the password nowhere", async () => {
    const answer = await admin(broken, "POST", "/routers", { team_id: TEAM_A, name: "d", device });
    expect(answer.status).toBe(503);
    expect(answer.body.error.message).toBe(
      `router passwords cannot be encrypted: the router key file ${join(dir, "router-key")} has mode 0644: group and others must not read it (chmod 600 ${join(dir, "router-key")})`,
    );
    const { rows } = await broken.service.app.db.query("SELECT id FROM routers WHERE name = 'd'");
    expect(rows).toEqual([]);
  });

  it("the logs, the answers and the rows hold no password (and the logs did record the requests)", async () => {
    const key = (await readFile(join(dir, "good", "router-key"), "utf8")).split(":")[1]?.trim() as string;
    for (const log of [goodLog.text(), brokenLog.text()]) {
      expect(log).toContain("/admin/routers");
      expect(log).not.toContain(PASSWORD);
      expect(log).not.toContain(key);
    }
    expect(brokenLog.text()).toContain("router key unusable");
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(PASSWORD);
    const { rows } = await good.service.app.db.query("SELECT * FROM routers");
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
  });
});
