/**
 * A self-signed certificate such as a RouterOS device makes for api-ssl: no CA behind it, so a client pins it
 * (its SHA-256 fingerprint) or trusts the certificate itself as `ca`.
 */
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
