import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { withFileLock, writeFileAtomic } from "../fs/file-lock.js";

export interface TlsMaterial {
  /** PEM certificate chain the server presents. */
  readonly cert: string;
  /** PEM private key of the server certificate. */
  readonly key: string;
  /** PEM certificate a client must trust (`--ca-file`, `NODE_EXTRA_CA_CERTS`). */
  readonly ca: string;
}

const DAY_MS = 24 * 3600 * 1000;

/** Names a loopback service answers to: a certificate valid for all of them works whatever the URL says. */
export const LOOPBACK_NAMES: readonly string[] = ["localhost", "127.0.0.1", "::1"];

/** Addresses a server listens on, not ones anybody connects to. */
export const WILDCARD_HOSTS: ReadonlySet<string> = new Set(["0.0.0.0", "::", ""]);

/**
 * Names a generated certificate must cover: loopback, plus the host the server listens on (clients on other
 * machines connect to it by that name) and any public URL's host.
 */
export function certificateHosts(listenHost?: string, publicUrl?: string): string[] {
  const names = new Set(LOOPBACK_NAMES);
  if (listenHost && !WILDCARD_HOSTS.has(listenHost)) names.add(listenHost);
  if (publicUrl) names.add(new URL(publicUrl).hostname.replace(/^\[|\]$/g, ""));
  return [...names];
}

/**
 * A local certificate authority and a server certificate it signs, for local use (demo, tests, a team trying
 * the service). A separate CA, rather than one self-signed leaf, is what OpenSSL verifies most reliably.
 */
export async function generateLocalTls(hosts: readonly string[] = LOOPBACK_NAMES): Promise<TlsMaterial> {
  // Loaded here, not with the module: selfsigned brings pkijs and asn1js (their source and objects kept for
  // the process's life), and most processes that import this module never generate a certificate
  // (a service without TLS, one that reads its certificate from files, a receiver's second start).
  const { generate } = await import("selfsigned");
  // Backdated by a day, as public CAs do: a peer whose clock is behind ours must not see "not yet valid".
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  const notAfterDate = new Date(Date.now() + 365 * DAY_MS);
  const ca = await generate([{ name: "commonName", value: "routerjobs local CA" }], {
    keyType: "ec",
    algorithm: "sha256",
    curve: "P-256",
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await generate([{ name: "commonName", value: hosts[0] ?? "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    curve: "P-256",
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: hosts.map((host) =>
          /^[\d.]+$|:/.test(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host },
        ),
      },
    ],
  });
  return { cert: server.cert, key: server.private, ca: ca.cert };
}

export const TLS_FILE_NAMES = { cert: "tls-cert.pem", key: "tls-key.pem", ca: "tls-ca.pem" } as const;

/**
 * Reuses the certificate in `dir` or creates one, so that a restarted service keeps the certificate its clients
 * already trust. The key is written readable by its owner only.
 */
export async function loadOrCreateLocalTls(
  dir: string,
  hosts?: readonly string[],
): Promise<TlsMaterial & { caFile: string }> {
  const paths = {
    cert: join(dir, TLS_FILE_NAMES.cert),
    key: join(dir, TLS_FILE_NAMES.key),
    ca: join(dir, TLS_FILE_NAMES.ca),
  };
  const load = async () => {
    try {
      const [cert, key, ca] = await Promise.all([
        readFile(paths.cert, "utf8"),
        readFile(paths.key, "utf8"),
        readFile(paths.ca, "utf8"),
      ]);
      return { cert, key, ca, caFile: paths.ca };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      return undefined;
    }
  };
  const existing = await load();
  if (existing) return existing;
  await mkdir(dir, { recursive: true });
  // Two processes starting on one empty directory must not mix one's certificate with the other's CA.
  return withFileLock(
    join(dir, "tls"),
    Date.now() + 30_000,
    () => new Error(`the TLS files in ${dir} stayed locked for 30 s`),
    async () => {
      const again = await load();
      if (again) return again;
      const material = await generateLocalTls(hosts);
      await writeFileAtomic(paths.key, material.key, 0o600);
      await writeFileAtomic(paths.cert, material.cert, 0o644);
      await writeFileAtomic(paths.ca, material.ca, 0o644);
      return { ...material, caFile: paths.ca };
    },
  );
}

export async function readTlsFiles(
  certFile: string,
  keyFile: string,
): Promise<{ cert: string; key: string }> {
  const [cert, key] = await Promise.all([readFile(certFile, "utf8"), readFile(keyFile, "utf8")]);
  return { cert, key };
}

/**
 * A self-signed certificate that is its own authority, for a peer that pins exactly this certificate as its
 * only root (a Terraform plugin's server certificate under go-plugin's automatic mutual TLS, which verifies the
 * name `localhost`). Serves as server and as client, as go-plugin's own certificates do.
 */
export async function generatePinnedTls(hosts: readonly string[] = LOOPBACK_NAMES): Promise<TlsMaterial> {
  const { generate } = await import("selfsigned");
  const notBeforeDate = new Date(Date.now() - DAY_MS);
  const notAfterDate = new Date(Date.now() + 30 * DAY_MS);
  const pinned = await generate([{ name: "commonName", value: hosts[0] ?? "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    curve: "P-256",
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", digitalSignature: true, keyCertSign: true, critical: true },
      { name: "extKeyUsage", serverAuth: true, clientAuth: true },
      {
        name: "subjectAltName",
        altNames: hosts.map((host) =>
          /^[\d.]+$|:/.test(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host },
        ),
      },
    ],
  });
  return { cert: pinned.cert, key: pinned.private, ca: pinned.cert };
}
