/**
 * The keys of the simulated router's SSH service: its host key (ed25519, made at the first start and kept in
 * a file beside the state file, so a client's known_hosts stays right across restarts, as a router keeps its
 * key across reboots), the key's fingerprint as OpenSSH prints it, and the public keys a user may log in
 * with, read from an OpenSSH authorized_keys file.
 */
import { createPrivateKey, createPublicKey, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import ssh2 from "ssh2";
import { UsageError } from "../../../errors.js";
import { writeFileAtomic } from "../../../platform/fs/file-lock.js";
import { sshFingerprint } from "../../api/ssh-client.js";

export type PublicKey = ReturnType<typeof parsedKey>;

export interface HostKey {
  /** OpenSSH private key text; it never leaves the process or its file. */
  readonly privateKey: string;
  /** `ssh-ed25519 AAAA...`, as a known_hosts line holds it after the host. */
  readonly publicKey: string;
  /** `SHA256:...`, as `ssh-keygen -l` and OpenSSH's prompts show it. */
  readonly fingerprint: string;
}

function parsedKey(text: string, what: string) {
  const key = ssh2.utils.parseKey(text);
  if (key instanceof Error) throw new UsageError(`${what}: ${key.message}`);
  return key;
}

/** The SHA-256 fingerprint of a public key blob, as OpenSSH prints it (the client pins the same). */
export const fingerprintOf = sshFingerprint;

function hostKeyFrom(privateKey: string, what: string): HostKey {
  const key = parsedKey(privateKey, what);
  const blob = key.getPublicSSH();
  return {
    privateKey,
    publicKey: `${key.type} ${blob.toString("base64")}`,
    fingerprint: fingerprintOf(blob),
  };
}

/**
 * A new ed25519 host key. Not ssh2's generateKeyPairSync: it drops a public key's leading zero bytes, so one key
 * in 256 came out malformed, `router simulate` exited before its ready line, and a test waiting for that line
 * hung (CI, Node 20).
 */
export function newHostKey(seed: Buffer = randomBytes(32)): HostKey {
  return hostKeyFrom(openSshEd25519PrivateKey(seed), "generated host key");
}

/** PKCS#8 DER of an ed25519 private key, up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** `seed` as OpenSSH writes an unencrypted ed25519 private key (PROTOCOL.key in OpenSSH's source). */
export function openSshEd25519PrivateKey(seed: Buffer): string {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const publicKey = Buffer.from(String(createPublicKey(privateKey).export({ format: "jwk" }).x), "base64url");
  const publicBlob = Buffer.concat([sshString("ssh-ed25519"), sshString(publicKey)]);
  const check = randomBytes(4);
  const unpadded = Buffer.concat([
    check,
    check,
    publicBlob,
    sshString(Buffer.concat([seed, publicKey])),
    sshString(""),
  ]);
  const padding = Buffer.from(Array.from({ length: (8 - (unpadded.length % 8)) % 8 }, (_, i) => i + 1));
  const body = Buffer.concat([
    Buffer.from("openssh-key-v1\0", "latin1"),
    sshString("none"),
    sshString("none"),
    sshString(""),
    uint32(1),
    sshString(publicBlob),
    sshString(Buffer.concat([unpadded, padding])),
  ]);
  const lines = body.toString("base64").match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

function uint32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
}

function sshString(data: Buffer | string): Buffer {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return Buffer.concat([uint32(bytes.length), bytes]);
}

/**
 * The host key kept in `file`, made and written (mode 0600) when the file does not exist yet. A file that is
 * not a private key is an error, not a reason to make a new key: known_hosts entries would silently break.
 */
export async function hostKeyIn(file: string): Promise<HostKey> {
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (text !== undefined) return hostKeyFrom(text, `host key file ${file}`);
  const key = newHostKey();
  await writeFileAtomic(file, key.privateKey, 0o600);
  return key;
}

/**
 * The keys of an OpenSSH authorized_keys file: one per line, `[options] type base64 [comment]`, blank lines
 * and `#` comments skipped. A line that is not a public key fails with its line number.
 */
export function parseAuthorizedKeys(text: string, file: string): PublicKey[] {
  const keys: PublicKey[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    // Options (`from="..."`, `no-pty`) come before the key type; the simulator honours none of them.
    const start = line.search(/(?:^|\s)(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d+)\s/);
    const keyText = start < 0 ? line : line.slice(start).trim();
    const key = parsedKey(keyText, `${file} line ${index + 1} is not an OpenSSH public key`);
    if (key.isPrivateKey())
      throw new UsageError(`${file} line ${index + 1} holds a private key, not a public one`);
    keys.push(key);
  });
  return keys;
}
