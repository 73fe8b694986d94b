/**
 * Where and how the service reaches a real RouterOS device: over its API (TCP 8728, TLS 8729), or over its REST
 * API (`transport: "rest"`: www-ssl, HTTPS 443; www, HTTP 80, with `plaintext`), or over its console on SSH
 * (`transport: "ssh"`: port 22, the host key pinned by `sshHostKey`). A router without
 * an endpoint is simulated inside the service. The password is here only in memory, decrypted for the back end;
 * at rest it is encrypted (router-secrets), and no log, error, admin answer or process list ever shows it.
 */
/** How the service talks to the device: the RouterOS API, RouterOS 7's REST API, or its console over SSH. */
export type DeviceTransport = "api" | "rest" | "ssh";

export interface DeviceEndpoint {
  readonly host: string;
  /** @default api */
  readonly transport?: DeviceTransport;
  /** @default 8729 with TLS, 8728 with `plaintext`; over REST 443, and 80 with `plaintext` */
  readonly port?: number;
  readonly user: string;
  readonly password: string;
  /** How the device's certificate is verified: its SHA-256 fingerprint, or a CA (PEM) it must chain to. */
  readonly tls?: { readonly fingerprint?: string; readonly ca?: string };
  /** Over SSH: the pinned SHA-256 fingerprint of the router's host key, `SHA256:<base64>` (OpenSSH's form). */
  readonly sshHostKey?: string;
  /** The operator consented to plain TCP: `/login` then sends the password in clear text. */
  readonly plaintext?: boolean;
  /**
   * A job's backup is also `/system backup save` (`<name>.backup`) after the export: it holds what an export
   * cannot (user passwords, certificates and their keys), and a restore prefers it (docs/rollback.md).
   */
  readonly binaryBackup?: boolean;
}

/** `SHA256:<base64 of 32 bytes>`, OpenSSH's form of a host key's fingerprint, from any case of the prefix and
 * with or without padding; undefined for anything else. */
export function normaliseHostKeyFingerprint(text: string): string | undefined {
  const match = /^sha256:([A-Za-z0-9+/]{43})=?$/i.exec(text.trim());
  return match ? `SHA256:${match[1]}` : undefined;
}

/** The port a device's transport listens on when the endpoint names none (RouterOS's defaults). */
export function defaultDevicePort(endpoint: Pick<DeviceEndpoint, "transport" | "plaintext">): number {
  if (endpoint.transport === "ssh") return 22;
  if (endpoint.transport === "rest") return endpoint.plaintext ? 80 : 443;
  return endpoint.plaintext ? 8728 : 8729;
}

/** What an admin answer or a log may show of an endpoint: everything but the password. */
export function describeEndpoint(endpoint: DeviceEndpoint): Record<string, unknown> {
  return {
    host: endpoint.host,
    port: endpoint.port ?? defaultDevicePort(endpoint),
    user: endpoint.user,
    transport: endpoint.transport === "ssh" ? "ssh" : endpoint.plaintext ? "plaintext" : "tls",
    ...(endpoint.tls?.fingerprint ? { tls_fingerprint: endpoint.tls.fingerprint } : {}),
    ...(endpoint.tls?.ca ? { tls_ca: "configured" } : {}),
    ...(endpoint.binaryBackup ? { binary_backup: true } : {}),
    // Only when not the API, so that the answers of routers on the API stay as they were.
    ...(endpoint.transport === "rest" ? { service: endpoint.plaintext ? "www" : "www-ssl" } : {}),
    ...(endpoint.transport === "ssh" ? { service: "ssh", ssh_host_key: endpoint.sshHostKey } : {}),
  };
}
