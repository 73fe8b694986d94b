/**
 * A self-signed certificate such as a RouterOS device makes for api-ssl: no CA behind it, so a client pins it
 * (its SHA-256 fingerprint) or trusts the certificate itself as `ca`.
 */
import { readFile, writeFile } from "node:fs/promises";
import { generate } from "selfsigned";
import { LOOPBACK_NAMES } from "../../../platform/tls/certificates.js";

const DAY_MS = 24 * 3600 * 1000;

export async function selfSignedDeviceCertificate(
  hosts: readonly string[] = LOOPBACK_NAMES,
): Promise<{ cert: string; key: string }> {
  const names = [...new Set([...LOOPBACK_NAMES, ...hosts])];
  const pems = await generate([{ name: "commonName", value: names[0] ?? "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    curve: "P-256",
    // Backdated a day: a peer whose clock is behind must not see "not yet valid".
    notBeforeDate: new Date(Date.now() - DAY_MS),
    notAfterDate: new Date(Date.now() + 365 * DAY_MS),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: names.map((host) =>
          /^[\d.]+$|:/.test(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host },
        ),
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const PEM_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/;

/**
 * The device's certificate kept in `file` (certificate and key, PEM), as a router keeps its certificate across
 * reboots, so that a client's pin still holds after a restart: read when the file exists, else made and
 * written (0600, the key is in it). Throws naming the file when it holds no certificate and key.
 */
export async function keptDeviceCertificate(
  file: string,
  hosts: readonly string[] = LOOPBACK_NAMES,
): Promise<{ cert: string; key: string }> {
  let text: string | undefined;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (text === undefined) {
    const made = await selfSignedDeviceCertificate(hosts);
    await writeFile(file, `${made.cert.trim()}\n${made.key.trim()}\n`, { mode: 0o600 });
    return made;
  }
  const cert = PEM_CERTIFICATE.exec(text)?.[0];
  const key = PEM_KEY.exec(text)?.[0];
  if (!cert || !key) throw new Error(`${file} holds no PEM certificate and private key`);
  return { cert: `${cert}\n`, key: `${key}\n` };
}
