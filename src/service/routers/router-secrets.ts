/**
 * A device router's password at rest: AES-256-GCM under a service key, with the router's id as additional
 * authenticated data, so that a ciphertext copied onto another router's row fails to decrypt instead of handing
 * that router someone else's password. Each ciphertext names the id of its key; a keyring holds the current key
 * (for encryption) and older ones (for decryption only), which is how keys rotate.
 *
 * Where the keyring comes from (`loadKeyring`): `ROUTERJOBS_ROUTER_KEY` in the environment, else the key file
 * `<data>/router-key` (mode 0600, created on first use), else, for a throwaway `memory://` database without a
 * data directory, a random key that lives as long as the process. No error names a password or a key.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { EnvironmentError, UsageError } from "../../errors.js";
import { readOrCreateKeyFile } from "./router-key-file.js";

export const ROUTER_KEY_ENV = "ROUTERJOBS_ROUTER_KEY";
export const ROUTER_KEY_FILE = "router-key";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
/** The purpose and version go into the authenticated data too: a ciphertext is valid for one use only. */
const aad = (routerId: string) => Buffer.from(`routerjobs/router-password/v1/${routerId}`, "utf8");

export interface RouterKey {
  readonly id: string;
  readonly key: Buffer;
}

export interface RouterKeyring {
  /** Encrypts every new password. */
  readonly current: RouterKey;
  /** Every key that can decrypt, the current one included, by id. */
  readonly keys: ReadonlyMap<string, Buffer>;
  /** Where the keys came from, for error messages: the variable's name, the file's path, or `memory`. */
  readonly source: string;
}

/** The stored form: the key's id and base64 of iv (12 bytes) | ciphertext | GCM tag (16 bytes). */
export interface SealedPassword {
  readonly keyId: string;
  readonly sealed: string;
}

export function keyringOf(keys: readonly RouterKey[], source: string): RouterKeyring {
  const [current] = keys;
  if (!current) throw new UsageError(`${source} holds no key`);
  return { current, keys: new Map(keys.map((entry) => [entry.id, entry.key])), source };
}

/** A key's default id when none is written: derived from the key, so that the same key keeps the same id. */
export function defaultKeyId(key: Buffer): string {
  return `k${createHash("sha256").update("routerjobs router key id").update(key).digest("hex").slice(0, 12)}`;
}

/**
 * `base64` or `id:base64`, several separated by commas or new lines, the first being the current key. The
 * message names the entry by position and id, never its text.
 */
export function parseRouterKeys(text: string, source: string): RouterKeyring {
  const entries = text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0 && !entry.startsWith("#"));
  if (entries.length === 0) {
    throw new UsageError(`${source} holds no key: write the base64 of ${KEY_BYTES} random bytes`);
  }
  const keys: RouterKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const colon = entry.indexOf(":");
    const id = colon < 0 ? undefined : entry.slice(0, colon);
    const where = `${source}: key ${index + 1}${id === undefined ? "" : ` (id "${id}")`}`;
    if (id !== undefined && !KEY_ID.test(id)) {
      throw new UsageError(`${where}: the key id must be 1 to 32 of A-Z a-z 0-9 _ -`);
    }
    const encoded = colon < 0 ? entry : entry.slice(colon + 1);
    const key = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, "base64") : undefined;
    if (key?.length !== KEY_BYTES) {
      const got = key ? `${key.length} bytes` : "not base64";
      throw new UsageError(`${where}: must be the base64 of ${KEY_BYTES} random bytes (got ${got})`);
    }
    const keyId = id ?? defaultKeyId(key);
    if (keys.some((other) => other.id === keyId)) throw new UsageError(`${where}: the key id is used twice`);
    keys.push({ id: keyId, key });
  }
  return keyringOf(keys, source);
}

/** A new key in the form `parseRouterKeys` reads: what a fresh key file holds. */
export function newRouterKeyText(): string {
  const key = randomBytes(KEY_BYTES);
  return `${defaultKeyId(key)}:${key.toString("base64")}\n`;
}

export interface KeyringOptions {
  /** The service's data directory; the key file lives there. */
  readonly dataDir?: string | undefined;
  /** The service's database: `memory://` without a data directory gets a key that lives with the process. */
  readonly database: string;
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** The keyring the service encrypts and decrypts router passwords with (see the module comment). */
export async function loadKeyring(options: KeyringOptions): Promise<RouterKeyring> {
  const fromEnv = (options.env ?? process.env)[ROUTER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") return parseRouterKeys(fromEnv, ROUTER_KEY_ENV);
  if (options.dataDir !== undefined) {
    const { path, text } = await readOrCreateKeyFile(options.dataDir, ROUTER_KEY_FILE, newRouterKeyText);
    return parseRouterKeys(text, path);
  }
  if (options.database.startsWith("memory://")) {
    return keyringOf([{ id: "memory", key: randomBytes(KEY_BYTES) }], "memory");
  }
  // A random key here would make every stored password unreadable after a restart.
  throw new UsageError(
    `router passwords need a key: set ${ROUTER_KEY_ENV} or give the service a data directory for ${ROUTER_KEY_FILE}`,
  );
}

const loaded = new WeakMap<object, Promise<RouterKeyring>>();

/**
 * One keyring per service configuration, loaded on first use: the admin API, the seed and the router cycle all
 * reach the same keys (an in-memory key included) without each loading its own.
 */
export function serviceKeyring(
  config: { readonly dataDir?: string | undefined; readonly database: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<RouterKeyring> {
  let keyring = loaded.get(config);
  if (!keyring) {
    keyring = loadKeyring({ dataDir: config.dataDir, database: config.database, env });
    // A refused key file can be fixed while the service runs: the next use tries again.
    keyring.catch(() => loaded.delete(config));
    loaded.set(config, keyring);
  }
  return keyring;
}

export function sealPassword(keyring: RouterKeyring, routerId: string, password: string): SealedPassword {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyring.current.key, iv);
  cipher.setAAD(aad(routerId));
  const body = Buffer.concat([cipher.update(password, "utf8"), cipher.final()]);
  return {
    keyId: keyring.current.id,
    sealed: Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64"),
  };
}

export function openPassword(keyring: RouterKeyring, routerId: string, stored: SealedPassword): string {
  const key = keyring.keys.get(stored.keyId);
  if (!key) {
    throw new EnvironmentError(
      `the password of router ${routerId} was encrypted with key id "${stored.keyId}", which ${keyring.source} does not hold (add the old key after the current one)`,
    );
  }
  const bytes = Buffer.from(stored.sealed, "base64");
  try {
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error("too short");
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(aad(routerId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const body = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
  } catch {
    // Node's own message says only "Unsupported state or unable to authenticate data"; ours says what it means.
    throw new EnvironmentError(
      `the password of router ${routerId} does not decrypt with key id "${stored.keyId}": the key is not the one it was encrypted with, or the stored value was altered or belongs to another router`,
    );
  }
}

/** The password under the current key, or undefined when it already is (rotation re-encrypts the others). */
export function resealPassword(
  keyring: RouterKeyring,
  routerId: string,
  stored: SealedPassword,
): SealedPassword | undefined {
  if (stored.keyId === keyring.current.id) return undefined;
  return sealPassword(keyring, routerId, openPassword(keyring, routerId, stored));
}
