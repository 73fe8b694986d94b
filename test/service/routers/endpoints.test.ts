/**
 * A device router's endpoint in the store, on PGlite and on PostgreSQL (one SQL): saved with its password
 * encrypted, read back decrypted, described without the key, cleared, and moved to a new key on rotation.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeviceEndpoint } from "../../../src/contract/routers/device-endpoint.js";
import { type Database, openDatabase } from "../../../src/service/database/database.js";
import { migrate } from "../../../src/service/database/migrations.js";
import {
  clearEndpoint,
  readEndpoint,
  readStoredEndpoint,
  resealPasswords,
  saveEndpoint,
} from "../../../src/service/routers/endpoints.js";
import { parseRouterKeys } from "../../../src/service/routers/router-secrets.js";
import { SERVICE_MIGRATIONS } from "../../../src/service/schema.js";
import { applySeed } from "../../../src/service/seed.js";
import { postgresAvailability, startPostgres, type TestPostgres } from "../../helpers/postgres.js";
import { ROUTER_A, ROUTER_A2, ROUTER_B, SEED_BEFORE_TEAM_NAMES } from "../harness.js";

const PASSWORD = "s3cret-Pässword with spaces";
const oldKey = randomBytes(32).toString("base64");
const newKey = randomBytes(32).toString("base64");
const keyring = parseRouterKeys(`old:${oldKey}`, "test");
const rotated = parseRouterKeys(`new:${newKey},old:${oldKey}`, "test");
const pinned: DeviceEndpoint = {
  host: "192.0.2.10",
  port: 18729,
  user: "routerjobs",
  password: PASSWORD,
  tls: { fingerprint: `sha256:${"AB:".repeat(31)}AB` },
};
const plain: DeviceEndpoint = { host: "edge.example.net", user: "api", password: "other", plaintext: true };

const availability = postgresAvailability();

const backends: [string, () => Promise<{ location: string; stop(): Promise<void> }>, boolean][] = [
  ["PGlite", async () => ({ location: "memory://", stop: async () => {} }), true],
  [
    "PostgreSQL",
    async () => {
      const postgres: TestPostgres = await startPostgres();
      return { location: postgres.url, stop: () => postgres.stop() };
    },
    availability.available,
  ],
];

for (const [name, start, available] of backends) {
  describe.skipIf(!available)(`device endpoints in the store (${name})`, () => {
    let db: Database;
    let stop: () => Promise<void>;
    beforeAll(async () => {
      const backend = await start();
      stop = backend.stop;
      db = await openDatabase({ location: backend.location });
      await migrate(db, "service", SERVICE_MIGRATIONS);
      await applySeed(db, SEED_BEFORE_TEAM_NAMES as never);
    });
    afterAll(async () => {
      await db?.close();
      await stop?.();
    });

    it("a simulated router has no endpoint", async () => {
      expect(await readEndpoint(db, ROUTER_B, keyring)).toBeUndefined();
      expect(await readStoredEndpoint(db, ROUTER_B)).toBeUndefined();
    });

    it("round-trips an endpoint; no column holds the password in clear", async () => {
      expect(await saveEndpoint(db, ROUTER_A, pinned, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A, keyring)).toEqual(pinned);
      const { password: _, ...withoutPassword } = pinned;
      expect(await readStoredEndpoint(db, ROUTER_A)).toEqual(withoutPassword);

      const { rows } = await db.query("SELECT * FROM routers WHERE id = $1", [ROUTER_A]);
      const row = rows[0] as Record<string, unknown>;
      expect(row.device_key_id).toBe("old");
      expect(typeof row.device_password).toBe("string");
      // The check can fail: the row does hold the endpoint's other values.
      expect(JSON.stringify(row)).toContain("192.0.2.10");
      expect(JSON.stringify(row)).not.toContain(PASSWORD);
      expect(JSON.stringify(row)).not.toContain(Buffer.from(PASSWORD).toString("base64").slice(0, 12));
    });

    it("replacing an endpoint leaves nothing of the old one", async () => {
      expect(await saveEndpoint(db, ROUTER_A2, pinned, keyring)).toBe(true);
      expect(await saveEndpoint(db, ROUTER_A2, plain, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A2, keyring)).toEqual(plain);
    });

    it("a password copied onto another router's row does not decrypt there", async () => {
      await db.query(
        `UPDATE routers SET device_password = (SELECT device_password FROM routers WHERE id = $1) WHERE id = $2`,
        [ROUTER_A, ROUTER_A2],
      );
      await expect(readEndpoint(db, ROUTER_A2, keyring)).rejects.toThrow(
        `router ${ROUTER_A2} does not decrypt with key id "old"`,
      );
      await saveEndpoint(db, ROUTER_A2, plain, keyring);
    });

    it("the database refuses half an endpoint", async () => {
      await expect(
        db.query("UPDATE routers SET device_host = 'x' WHERE id = $1", [ROUTER_B]),
      ).rejects.toThrow(/routers_device_whole/);
      await expect(
        db.query("UPDATE routers SET device_tls_fingerprint = NULL WHERE id = $1", [ROUTER_A]),
      ).rejects.toThrow(/routers_device_whole/);
    });

    it("rotation re-encrypts every password under the current key; the old key alone then reads none", async () => {
      expect(await resealPasswords(db, rotated)).toBe(2);
      expect(await resealPasswords(db, rotated)).toBe(0);
      const newOnly = parseRouterKeys(`new:${newKey}`, "test");
      expect(await readEndpoint(db, ROUTER_A, newOnly)).toEqual(pinned);
      expect(await readEndpoint(db, ROUTER_A2, newOnly)).toEqual(plain);
      await expect(readEndpoint(db, ROUTER_A, keyring)).rejects.toThrow(/key id "new"/);
    });

    it("round-trips binary_backup; the database refuses it on a router without a device", async () => {
      const binary: DeviceEndpoint = { ...pinned, binaryBackup: true };
      expect(await saveEndpoint(db, ROUTER_A2, binary, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A2, rotated)).toEqual(binary);
      const { password: _, ...stored } = binary;
      expect(await readStoredEndpoint(db, ROUTER_A2)).toEqual(stored);
      await expect(
        db.query("UPDATE routers SET device_binary_backup = true WHERE id = $1", [ROUTER_B]),
      ).rejects.toThrow(/routers_device_binary_backup/);
      expect(await saveEndpoint(db, ROUTER_A2, plain, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A2, rotated)).toEqual(plain);
    });

    it("round-trips transport rest; the database refuses it on a router without a device", async () => {
      const rest: DeviceEndpoint = { ...pinned, transport: "rest" };
      expect(await saveEndpoint(db, ROUTER_A2, rest, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A2, rotated)).toEqual(rest);
      const { password: _, ...stored } = rest;
      expect(await readStoredEndpoint(db, ROUTER_A2)).toEqual(stored);
      await expect(
        db.query("UPDATE routers SET device_transport = 'rest' WHERE id = $1", [ROUTER_B]),
      ).rejects.toThrow(/routers_device_transport/);
      await expect(
        db.query("UPDATE routers SET device_transport = 'telnet' WHERE id = $1", [ROUTER_A2]),
      ).rejects.toThrow(/routers_device_transport/);
      expect(await saveEndpoint(db, ROUTER_A2, plain, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A2, rotated)).toEqual(plain);
    });

    it("round-trips transport ssh with its pinned host key; the database refuses a host key without ssh", async () => {
      const { tls: _, ...login } = pinned;
      const ssh: DeviceEndpoint = { ...login, transport: "ssh", sshHostKey: `SHA256:${"a".repeat(43)}` };
      expect(await saveEndpoint(db, ROUTER_A2, ssh, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A2, rotated)).toEqual(ssh);
      await expect(
        db.query("UPDATE routers SET device_transport = 'rest' WHERE id = $1", [ROUTER_A2]),
      ).rejects.toThrow(/routers_device_ssh_host_key/);
      await expect(
        db.query("UPDATE routers SET device_ssh_host_key = NULL WHERE id = $1", [ROUTER_A2]),
      ).rejects.toThrow(/routers_device_ssh_host_key|routers_device_whole/);
      expect(await saveEndpoint(db, ROUTER_A2, plain, keyring)).toBe(true);
      expect(await readEndpoint(db, ROUTER_A2, rotated)).toEqual(plain);
    });

    it("clearing makes the router simulated again; a removed router has no endpoint to save", async () => {
      expect(await clearEndpoint(db, ROUTER_A2)).toBe(true);
      expect(await clearEndpoint(db, ROUTER_A2)).toBe(false);
      expect(await readEndpoint(db, ROUTER_A2, rotated)).toBeUndefined();
      const { rows } = await db.query("SELECT * FROM routers WHERE id = $1", [ROUTER_A2]);
      expect(
        Object.entries(rows[0] as object).filter(([key, value]) => key.startsWith("device_") && value),
      ).toEqual([]);
      expect(await saveEndpoint(db, "ffffffff-0000-4000-8000-000000000000", pinned, keyring)).toBe(false);
    });
  });
}

for (const [name, start, available] of backends) {
  describe.skipIf(!available)(`migration 4 (binary_backup) on an existing database (${name})`, () => {
    it("adds the column to routers that exist, their endpoints as they were and the option off", async () => {
      const backend = await start();
      const db = await openDatabase({ location: backend.location });
      try {
        // GIVEN a database of the schema before migration 4, with a device router and a simulated one
        expect(await migrate(db, "service", SERVICE_MIGRATIONS.slice(0, 3))).toBe(3);
        await applySeed(db, SEED_BEFORE_TEAM_NAMES as never);
        await db.query(
          `UPDATE routers SET device_host = '192.0.2.20', device_user = 'api', device_plaintext = true,
             device_password = 'sealed', device_key_id = 'old' WHERE id = $1`,
          [ROUTER_A],
        );
        // WHEN this build's migrations run on it
        expect(await migrate(db, "service", SERVICE_MIGRATIONS)).toBe(SERVICE_MIGRATIONS.length);
        // THEN both routers are there, the device's endpoint unchanged and without a binary backup
        expect(await readStoredEndpoint(db, ROUTER_A)).toEqual({
          host: "192.0.2.20",
          user: "api",
          plaintext: true,
        });
        expect(await readStoredEndpoint(db, ROUTER_B)).toBeUndefined();
        const { rows } = await db.query<{ id: string; device_binary_backup: boolean }>(
          "SELECT id, device_binary_backup FROM routers WHERE id IN ($1, $2) ORDER BY id",
          [ROUTER_A, ROUTER_B],
        );
        expect(rows.map((row) => row.device_binary_backup)).toEqual([false, false]);
        const { rows: versions } = await db.query<{ version: number }>(
          "SELECT version FROM schema_migrations WHERE component = 'service' ORDER BY version",
        );
        // Every migration, 4 and the ones after it.
        expect(versions.map((row) => row.version)).toEqual(
          SERVICE_MIGRATIONS.map((migration) => migration.version),
        );
        expect(versions.map((row) => row.version)).toContain(4);
        // AND the option can be set on it now
        expect(await saveEndpoint(db, ROUTER_A, { ...plain, binaryBackup: true }, keyring)).toBe(true);
        expect((await readStoredEndpoint(db, ROUTER_A))?.binaryBackup).toBe(true);
      } finally {
        await db.close();
        await backend.stop();
      }
    });
  });
}
