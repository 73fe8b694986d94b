import type { Device } from "../../contract/device.js";
import type { DeviceEndpoint } from "../../contract/routers/device-endpoint.js";
import type { Queryable } from "../database/database.js";
import {
  openPassword,
  type RouterKeyring,
  resealPassword,
  type SealedPassword,
  sealPassword,
} from "./router-secrets.js";

/**
 * The endpoint of a router that is a real device, in the `device_*` columns of `routers` (schema.ts, migrations
 * 2, 4, 8 and 9). The password is sealed before it reaches SQL and opened only by `readEndpoint`, for the back end.
 */

/** An endpoint without its password: what an admin answer describes, read without the key. */
export type StoredEndpoint = Omit<DeviceEndpoint, "password">;

interface EndpointRow {
  device_host: string | null;
  device_port: number | null;
  device_user: string | null;
  device_tls_fingerprint: string | null;
  device_tls_ca: string | null;
  device_plaintext: boolean;
  device_binary_backup: boolean;
  device_transport: string | null;
  device_ssh_host_key: string | null;
  device_password: string | null;
  device_key_id: string | null;
}

const COLUMNS = `device_host, device_port, device_user, device_tls_fingerprint, device_tls_ca, device_plaintext,
  device_binary_backup, device_transport, device_ssh_host_key, device_password, device_key_id`;

/** The admin API's `device` object as the back end's endpoint. */
export function endpointFromDevice(device: Device): DeviceEndpoint {
  const tls = device.tls_fingerprint
    ? { fingerprint: device.tls_fingerprint }
    : device.tls_ca
      ? { ca: device.tls_ca }
      : undefined;
  return {
    host: device.host,
    ...(device.port === undefined ? {} : { port: device.port }),
    user: device.user,
    password: device.password,
    ...(tls ? { tls } : {}),
    ...(device.plaintext ? { plaintext: true } : {}),
    ...(device.binary_backup ? { binaryBackup: true } : {}),
    ...(device.transport === "rest" || device.transport === "ssh" ? { transport: device.transport } : {}),
    ...(device.ssh_host_key ? { sshHostKey: device.ssh_host_key } : {}),
  };
}

/** Stores (or replaces) a router's endpoint, its password encrypted; false when the router does not exist. */
export async function saveEndpoint(
  db: Queryable,
  routerId: string,
  endpoint: DeviceEndpoint,
  keyring: RouterKeyring,
): Promise<boolean> {
  const { keyId, sealed } = sealPassword(keyring, routerId, endpoint.password);
  const { rows } = await db.query(
    `UPDATE routers SET device_host = $2, device_port = $3, device_user = $4, device_tls_fingerprint = $5,
       device_tls_ca = $6, device_plaintext = $7, device_password = $8, device_key_id = $9,
       device_binary_backup = $10, device_transport = $11, device_ssh_host_key = $12
     WHERE id = $1 AND removed_at IS NULL RETURNING id`,
    [
      routerId,
      endpoint.host,
      endpoint.port ?? null,
      endpoint.user,
      endpoint.tls?.fingerprint ?? null,
      endpoint.tls?.ca ?? null,
      endpoint.plaintext === true,
      sealed,
      keyId,
      endpoint.binaryBackup === true,
      endpoint.transport === "rest" || endpoint.transport === "ssh" ? endpoint.transport : null,
      endpoint.transport === "ssh" ? (endpoint.sshHostKey ?? null) : null,
    ],
  );
  return rows.length > 0;
}

async function endpointRow(db: Queryable, routerId: string): Promise<EndpointRow | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM routers WHERE id = $1 AND removed_at IS NULL AND device_host IS NOT NULL`,
    [routerId],
  );
  return rows[0];
}

function withoutPassword(row: EndpointRow): StoredEndpoint {
  const tls = {
    ...(row.device_tls_fingerprint ? { fingerprint: row.device_tls_fingerprint } : {}),
    ...(row.device_tls_ca ? { ca: row.device_tls_ca } : {}),
  };
  return {
    host: row.device_host as string,
    ...(row.device_port === null ? {} : { port: row.device_port }),
    user: row.device_user as string,
    ...(Object.keys(tls).length > 0 ? { tls } : {}),
    ...(row.device_plaintext ? { plaintext: true } : {}),
    ...(row.device_binary_backup ? { binaryBackup: true } : {}),
    ...(row.device_transport === "rest" || row.device_transport === "ssh"
      ? { transport: row.device_transport }
      : {}),
    ...(row.device_ssh_host_key ? { sshHostKey: row.device_ssh_host_key } : {}),
  };
}

/** The router's endpoint with its password decrypted, or undefined for a simulated (or removed) router. */
export async function readEndpoint(
  db: Queryable,
  routerId: string,
  keyring: RouterKeyring,
): Promise<DeviceEndpoint | undefined> {
  const row = await endpointRow(db, routerId);
  if (!row) return undefined;
  const stored = { keyId: row.device_key_id as string, sealed: row.device_password as string };
  return { ...withoutPassword(row), password: openPassword(keyring, routerId, stored) };
}

/** The endpoint without its password and without the key: for admin answers (`describeEndpoint`). */
export async function readStoredEndpoint(
  db: Queryable,
  routerId: string,
): Promise<StoredEndpoint | undefined> {
  const row = await endpointRow(db, routerId);
  return row ? withoutPassword(row) : undefined;
}

/** The router becomes simulated again; false when it does not exist or had no endpoint. */
export async function clearEndpoint(db: Queryable, routerId: string): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE routers SET device_host = NULL, device_port = NULL, device_user = NULL, device_tls_fingerprint = NULL,
       device_tls_ca = NULL, device_plaintext = false, device_binary_backup = false, device_password = NULL,
       device_key_id = NULL, device_transport = NULL, device_ssh_host_key = NULL
     WHERE id = $1 AND removed_at IS NULL AND device_host IS NOT NULL RETURNING id`,
    [routerId],
  );
  return rows.length > 0;
}

/**
 * Key rotation: every password encrypted under another key than the current one is encrypted again under the
 * current one. Each row is updated only if it still holds what was read, so a concurrent save is never undone.
 * Returns the number of passwords moved; a password no key of the keyring opens fails the whole call.
 */
export async function resealPasswords(db: Queryable, keyring: RouterKeyring): Promise<number> {
  const { rows } = await db.query<{ id: string; device_password: string; device_key_id: string }>(
    `SELECT id, device_password, device_key_id FROM routers
     WHERE device_password IS NOT NULL AND device_key_id <> $1 ORDER BY id`,
    [keyring.current.id],
  );
  let moved = 0;
  for (const row of rows) {
    const stored: SealedPassword = { keyId: row.device_key_id, sealed: row.device_password };
    const next = resealPassword(keyring, row.id, stored);
    if (!next) continue;
    const updated = await db.query(
      `UPDATE routers SET device_password = $2, device_key_id = $3
       WHERE id = $1 AND device_password = $4 AND device_key_id = $5 RETURNING id`,
      [row.id, next.sealed, next.keyId, stored.sealed, stored.keyId],
    );
    moved += updated.rows.length;
  }
  return moved;
}
