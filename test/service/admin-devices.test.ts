/**
 * Routers that are real devices, through the admin API: added with a `device` (and its `binary_backup`), shown
 * without the password, refused with the field and the limit when wrong (never echoing the password), seeded,
 * and made simulated again. What is stored decrypts with the service's keyring, the one the router cycle reads endpoints with.
 */
import { generateKeyPairSync, randomBytes, X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLocalTls } from "../../src/platform/tls/certificates.js";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { resolveConfig } from "../../src/service/config.js";
import { readEndpoint } from "../../src/service/routers/endpoints.js";
import { parseRouterKeys, serviceKeyring } from "../../src/service/routers/router-secrets.js";
import { readSeedFile } from "../../src/service/seed.js";
import { startService } from "../../src/service/server.js";
import { ADMIN_TOKEN, type Answer, startTestService, TEAM_A, TEAM_B, type TestService } from "./harness.js";

const DEVICE_ROUTER = "de000000-0000-4000-8000-000000000001";
const PLAIN_ROUTER = "de000000-0000-4000-8000-000000000002";
const SEEDED_ROUTER = "de000000-0000-4000-8000-000000000003";
const BINARY_ROUTER = "de000000-0000-4000-8000-000000000004";
const REST_ROUTER = "de000000-0000-4000-8000-000000000005";
const SSH_ROUTER = "de000000-0000-4000-8000-000000000006";
const HOST_KEY = `SHA256:${"Qk".repeat(21)}w`;
const PASSWORD = "Zq8-unlikely-password-47";
const FINGERPRINT = `sha256:${"0a:".repeat(31)}0a`;
const device = { host: "192.0.2.10", user: "routerjobs", password: PASSWORD, tls_fingerprint: FINGERPRINT };

describe("admin API: routers that are real devices", () => {
  let svc: TestService;
  const answers: Answer[] = [];
  const admin = async (method: "GET" | "POST" | "DELETE", path: string, body?: unknown) => {
    const answer = await svc.call(method, `/admin${path}`, { token: ADMIN_TOKEN, body });
    answers.push(answer);
    return answer;
  };
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => svc?.close());

  it("adds a device router; the answer describes the endpoint and holds no password", async () => {
    const answer = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: DEVICE_ROUTER,
      name: "branch-7",
      device: { ...device, tls_fingerprint: "0A".repeat(32) },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data).toEqual({
      id: DEVICE_ROUTER,
      team_id: TEAM_A,
      name: "branch-7",
      device: {
        host: "192.0.2.10",
        port: 8729,
        user: "routerjobs",
        transport: "tls",
        tls_fingerprint: FINGERPRINT.toUpperCase().replace("SHA256", "sha256"),
      },
    });
    const shown = await admin("GET", `/routers/${DEVICE_ROUTER}`);
    expect(shown.body.data).toEqual({
      id: DEVICE_ROUTER,
      team_id: TEAM_A,
      name: "branch-7",
      online: true,
      device: answer.body.data.device,
    });
    // What the router cycle will read: the service's own keyring opens it.
    const keyring = await serviceKeyring(svc.service.app.config);
    expect(await readEndpoint(svc.service.app.db, DEVICE_ROUTER, keyring)).toMatchObject({
      password: PASSWORD,
      tls: { fingerprint: answer.body.data.device.tls_fingerprint },
    });
  });

  it("a plaintext device and one verified by a CA", async () => {
    const plain = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: PLAIN_ROUTER,
      name: "lab",
      device: { host: "fd00::1", port: 18728, user: "api", password: PASSWORD, plaintext: true },
    });
    expect(plain.body.data.device).toEqual({
      host: "fd00::1",
      port: 18728,
      user: "api",
      transport: "plaintext",
    });
    const { ca } = await generateLocalTls(["127.0.0.1"]);
    const withCa = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: PLAIN_ROUTER,
      name: "lab",
      device: { host: "lab.example.net", user: "api", password: PASSWORD, tls_ca: ca },
    });
    expect(withCa.body.data.device).toEqual({
      host: "lab.example.net",
      port: 8729,
      user: "api",
      transport: "tls",
      tls_ca: "configured",
    });
    expect(new X509Certificate(ca).ca).toBe(true);
  });

  it("a device with binary_backup: shown as set, carried to the back end, dropped with the endpoint", async () => {
    const answer = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: BINARY_ROUTER,
      name: "branch-8",
      device: { ...device, binary_backup: true },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.device).toEqual({
      host: "192.0.2.10",
      port: 8729,
      user: "routerjobs",
      transport: "tls",
      tls_fingerprint: FINGERPRINT.toUpperCase().replace("SHA256", "sha256"),
      binary_backup: true,
    });
    expect((await admin("GET", `/routers/${BINARY_ROUTER}`)).body.data.device).toEqual(
      answer.body.data.device,
    );
    const keyring = await serviceKeyring(svc.service.app.config);
    expect(await readEndpoint(svc.service.app.db, BINARY_ROUTER, keyring)).toMatchObject({
      password: PASSWORD,
      binaryBackup: true,
    });
    // Added again without it: off (false is the same as leaving it out, and shows nothing)
    const off = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: BINARY_ROUTER,
      name: "branch-8",
      device: { ...device, binary_backup: false },
    });
    expect(off.body.data.device).not.toHaveProperty("binary_backup");
    expect((await admin("GET", `/routers/${BINARY_ROUTER}`)).body.data.device).not.toHaveProperty(
      "binary_backup",
    );
    // A router made simulated again keeps nothing of the option (the database refuses it without a device)
    await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: BINARY_ROUTER,
      name: "branch-8",
      device: { ...device, binary_backup: true },
    });
    expect((await admin("DELETE", `/routers/${BINARY_ROUTER}/device`)).status).toBe(200);
    const { rows } = await svc.service.app.db.query(
      "SELECT device_binary_backup FROM routers WHERE id = $1",
      [BINARY_ROUTER],
    );
    expect(rows).toEqual([{ device_binary_backup: false }]);
  });

  it("a device driven over REST: default port 443, shown as www-ssl, carried to the back end; another transport refused", async () => {
    const answer = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: REST_ROUTER,
      name: "branch-9",
      device: { ...device, transport: "rest" },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.device).toEqual({
      host: "192.0.2.10",
      port: 443,
      user: "routerjobs",
      transport: "tls",
      tls_fingerprint: FINGERPRINT.toUpperCase().replace("SHA256", "sha256"),
      service: "www-ssl",
    });
    const keyring = await serviceKeyring(svc.service.app.config);
    expect(await readEndpoint(svc.service.app.db, REST_ROUTER, keyring)).toMatchObject({
      transport: "rest",
      password: PASSWORD,
    });
    const refused = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: REST_ROUTER,
      name: "branch-9",
      device: { ...device, transport: "telnet" },
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toMatch(/transport must be \\"api\\", \\"rest\\" or \\"ssh\\"/);
    expect(JSON.stringify(refused.body)).not.toContain(PASSWORD);
  });

  it("a device driven over SSH: default port 22, its host key pinned and shown, carried to the back end", async () => {
    const { tls_fingerprint: _, ...login } = device;
    const answer = await admin("POST", "/routers", {
      team_id: TEAM_A,
      id: SSH_ROUTER,
      name: "branch-10",
      device: { ...login, transport: "ssh", ssh_host_key: HOST_KEY.replace("SHA256", "sha256") },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.data.device).toEqual({
      host: "192.0.2.10",
      port: 22,
      user: "routerjobs",
      transport: "ssh",
      service: "ssh",
      ssh_host_key: HOST_KEY,
    });
    const keyring = await serviceKeyring(svc.service.app.config);
    expect(await readEndpoint(svc.service.app.db, SSH_ROUTER, keyring)).toMatchObject({
      transport: "ssh",
      sshHostKey: HOST_KEY,
      password: PASSWORD,
    });
    expect((await admin("GET", `/routers/${SSH_ROUTER}`)).body.data.device).toMatchObject({
      ssh_host_key: HOST_KEY,
    });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...login, transport: "ssh" }, /give ssh_host_key, the SHA-256 fingerprint of the router's host key/],
      [{ ...login, transport: "ssh", ssh_host_key: "md5:ab" }, /ssh_host_key must be the host key's SHA-256/],
      [
        { ...device, transport: "ssh", ssh_host_key: HOST_KEY },
        /verified by ssh_host_key: leave out tls_fingerprint/,
      ],
      [{ ...device, ssh_host_key: HOST_KEY }, /ssh_host_key is for transport: \\"ssh\\" only/],
    ];
    for (const [bad, message] of cases) {
      const refused = await admin("POST", "/routers", { team_id: TEAM_A, name: "bad-ssh", device: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(422);
      expect(JSON.stringify(refused.body)).toMatch(message);
      expect(JSON.stringify(refused.body)).not.toContain(PASSWORD);
    }
  });

  it("refuses a bad device with 422 naming the field and the limit, the password never echoed", async () => {
    const longPassword = `${PASSWORD}${"x".repeat(240)}`;
    const keyPem = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...device, host: "bad host" }, "device.host", /host must be a DNS name.*"bad host"/],
      [
        { ...device, host: "h".repeat(254) },
        "device.host",
        /host must be at most 253 characters \(got 254\)/,
      ],
      [{ ...device, port: 0 }, "device.port", /port must be 1 to 65535 \(got 0\)/],
      [{ ...device, port: 65536 }, "device.port", /port must be 1 to 65535 \(got 65536\)/],
      [{ ...device, port: "8729" }, "device.port", /port must be a number/],
      [{ ...device, user: "" }, "device.user", /user must not be empty/],
      [
        { ...device, password: longPassword },
        "device.password",
        /password must be at most 256 characters \(got 264\)/,
      ],
      [{ ...device, password: "" }, "device.password", /password must not be empty/],
      [{ ...device, password: 4711 }, "device.password", /^password must be a string$/],
      [{ ...device, password: undefined }, "device.password", /^password must be a string$/],
      [{ ...device, tls_fingerprint: "md5:abc" }, "device.tls_fingerprint", /sha256: and 32 bytes in hex/],
      [{ ...device, tls_fingerprint: undefined }, "device.tls_fingerprint", /give tls_fingerprint or tls_ca/],
      [
        { ...device, tls_ca: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n" },
        "device.tls_ca",
        /tls_ca must be a PEM certificate/,
      ],
      [{ ...device, tls_ca: keyPem }, "device.tls_ca", /tls_ca must be a PEM certificate/],
      [{ ...device, plaintext: true }, "device.tls_fingerprint", /plaintext: true uses no TLS/],
      [{ ...device, plaintext: "yes" }, "device.plaintext", /plaintext must be true or false/],
      [{ ...device, binary_backup: "yes" }, "device.binary_backup", /binary_backup must be true or false/],
      [{ ...device, passwd: PASSWORD }, "passwd", /passwd/],
    ];
    for (const [bad, field, message] of cases) {
      const answer = await admin("POST", "/routers", { team_id: TEAM_A, name: "bad", device: bad });
      const label = `${field} ${JSON.stringify(bad).slice(0, 80)}`;
      expect(answer.status, label).toBe(422);
      expect(answer.body.error.code, label).toBe("invalid_request");
      const detail = answer.body.error.details.find((item: { field: string }) => item.field === field);
      expect(detail?.message, `${label}: ${JSON.stringify(answer.body)}`).toMatch(message);
    }
    // Nothing was added by the refused requests.
    const { rows } = await svc.service.app.db.query("SELECT id FROM routers WHERE name = 'bad'");
    expect(rows).toEqual([]);
  });

  it("a seed with devices describes them; a device router becomes simulated again", async () => {
    const seeded = await admin("POST", "/seed", {
      teams: [
        {
          id: TEAM_B,
          routers: [
            { id: SEEDED_ROUTER, name: "seeded", device: { ...device, port: 9000, binary_backup: true } },
          ],
        },
      ],
    });
    expect(seeded.status, JSON.stringify(seeded.body)).toBe(200);
    expect(seeded.body.data.routers).toEqual([
      {
        id: SEEDED_ROUTER,
        name: "seeded",
        device: {
          host: "192.0.2.10",
          port: 9000,
          user: "routerjobs",
          transport: "tls",
          tls_fingerprint: expect.stringMatching(/^sha256:/),
          binary_backup: true,
        },
      },
    ]);
    expect((await admin("DELETE", `/routers/${SEEDED_ROUTER}/device`)).body.data).toEqual({
      id: SEEDED_ROUTER,
      device: null,
    });
    expect((await admin("GET", `/routers/${SEEDED_ROUTER}`)).body.data.device).toBeNull();
    expect((await admin("DELETE", `/routers/${SEEDED_ROUTER}/device`)).status).toBe(404);
    expect((await admin("GET", "/routers/ffffffff-0000-4000-8000-000000000000")).status).toBe(404);
  });

  it("no answer, and no column of the database, holds the password", async () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(PASSWORD);
    const { rows } = await svc.service.app.db.query("SELECT * FROM routers");
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
    // The check can fail: the rows hold the endpoints.
    expect(JSON.stringify(rows)).toContain("192.0.2.10");
  });
});

describe("admin API: rotating the router key across a restart", () => {
  let dir: string;
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("the old key still decrypts after the new one is put first; reseal moves every password to it", async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-rotate-"));
    const config = { database: join(dir, "pglite"), dataDir: dir };
    const first = await startTestService(config);
    try {
      const added = await first.call("POST", "/admin/routers", {
        token: ADMIN_TOKEN,
        body: { team_id: TEAM_A, id: DEVICE_ROUTER, name: "rotating", device },
      });
      expect(added.status).toBe(200);
    } finally {
      await first.close();
    }
    const keyFile = join(dir, "router-key");
    const oldKey = (await readFile(keyFile, "utf8")).trim();
    await writeFile(keyFile, `fresh:${randomBytes(32).toString("base64")}\n${oldKey}\n`);

    const second = await startTestService(config);
    try {
      const { db, config: running } = second.service.app;
      const keyring = await serviceKeyring(running);
      expect(keyring.current.id).toBe("fresh");
      expect((await readEndpoint(db, DEVICE_ROUTER, keyring))?.password).toBe(PASSWORD);
      const reseal = await second.call("POST", "/admin/router-key/reseal", { token: ADMIN_TOKEN });
      expect(reseal.body).toEqual({ status: "success", data: { resealed: 1 } });
      const { rows } = await db.query("SELECT device_key_id FROM routers WHERE id = $1", [DEVICE_ROUTER]);
      expect(rows).toEqual([{ device_key_id: "fresh" }]);
      const freshOnly = parseRouterKeys((await readFile(keyFile, "utf8")).split("\n")[0] as string, "test");
      expect((await readEndpoint(db, DEVICE_ROUTER, freshOnly))?.password).toBe(PASSWORD);
    } finally {
      await second.close();
    }
  });
});

describe("a seed given at start (service --seed) with a device", () => {
  it("stores the endpoint under the service's own keyring", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rj-seed-device-"));
    try {
      await writeFile(join(dir, "edge.password"), `${PASSWORD}\n`, { mode: 0o600 });
      const seedFile = join(dir, "seed.json");
      const seedDevice = {
        host: "192.0.2.40",
        user: "api",
        password_file: "edge.password",
        plaintext: true,
        binary_backup: true,
      };
      await writeFile(
        seedFile,
        JSON.stringify({
          teams: [{ id: TEAM_B, routers: [{ id: SEEDED_ROUTER, name: "s", device: seedDevice }] }],
        }),
      );
      const service = await startService({
        config: resolveConfig({ database: "memory://" }),
        backend: new SimulatedBackend(),
        host: "127.0.0.1",
        port: 0,
        logger: false,
        seed: await readSeedFile(seedFile),
      });
      try {
        const keyring = await serviceKeyring(service.app.config);
        expect(await readEndpoint(service.app.db, SEEDED_ROUTER, keyring)).toEqual({
          host: "192.0.2.40",
          user: "api",
          password: PASSWORD,
          plaintext: true,
          binaryBackup: true,
        });
      } finally {
        await service.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
