/**
 * Opens the byte stream to a router: TLS (api-ssl, 8729) with the router's certificate verified, or TCP (api,
 * 8728) only when the caller says so, because `/login` sends the password in clear text.
 *
 * Verification, by what the caller knows:
 * - `ca`: the chain must lead to it and the certificate must name the host (Node's default check).
 * - `ca` and `fingerprint`: the chain must lead to `ca` and the leaf must have that SHA-256 fingerprint
 *   (compared in `checkServerIdentity`; a router reached by address often lacks that name in its certificate).
 * - `fingerprint` alone (a router's self-signed certificate, pinned): Node cannot check a chain it has no
 *   anchor for, so chain verification is off and the leaf's fingerprint is compared once the handshake ends,
 *   before a single byte is written. `rejectUnauthorized: false` never stands alone: it would also skip
 *   `checkServerIdentity`, and a router in api-ssl's anonymous mode (no certificate) would be accepted.
 */
import { createHash, X509Certificate } from "node:crypto";
import { type Socket, connect as tcpConnect } from "node:net";
import { type PeerCertificate, type TLSSocket, connect as tlsConnect } from "node:tls";
import { RouterApiConnectionError, RouterApiOptionsError, RouterApiTimeoutError } from "./errors.js";

export interface RouterApiTlsOptions {
  /** PEM certificate(s) to trust: a CA, or the router's own self-signed certificate. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** SHA-256 of the router's certificate: `sha256:AA:BB:...`, `AA:BB:...` or 64 hex digits. */
  readonly fingerprint?: string;
  /** Name to send (SNI) and to check; @default host when it is a name */
  readonly servername?: string;
}

export interface TransportOptions {
  readonly host: string;
  /** @default 8729 with TLS, 8728 without */
  readonly port?: number;
  /** Required unless `allowPlaintext` is true. */
  readonly tls?: RouterApiTlsOptions;
  /** Consent to send the password in clear text (a loopback test device). @default false */
  readonly allowPlaintext?: boolean;
  /** TCP connection plus TLS handshake. @default 10,000 */
  readonly connectTimeoutMs?: number;
}

/** `AA:BB:...` (Node's `fingerprint256` form) from any accepted spelling; throws for anything else. */
export function normaliseFingerprint(text: string): string {
  const hex = text
    .trim()
    .replace(/^sha256:/i, "")
    .replaceAll(":", "")
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new RouterApiOptionsError(
      "tls.fingerprint must be a SHA-256 fingerprint: sha256:AA:BB:... (32 bytes) or 64 hex digits",
    );
  }
  return hex.match(/../g)?.join(":") ?? hex;
}

/** `sha256:AA:BB:...` of a PEM certificate: what `router simulate` prints and a client pins. */
export function certificateFingerprint(pem: string): string {
  return `sha256:${new X509Certificate(pem).fingerprint256}`;
}

/** The same from DER bytes (for peers that hand out the raw certificate). */
export function derFingerprint(der: Uint8Array): string {
  const hex = createHash("sha256").update(der).digest("hex").toUpperCase();
  return `sha256:${hex.match(/../g)?.join(":")}`;
}

export async function openTransport(options: TransportOptions): Promise<Socket> {
  const { host, tls } = options;
  if (!tls && options.allowPlaintext !== true) {
    throw new RouterApiOptionsError(
      "plaintext RouterOS API sends the password in clear text: pass tls ({ ca } or { fingerprint }), or allowPlaintext: true for a trusted network",
    );
  }
  if (tls && tls.ca === undefined && tls.fingerprint === undefined) {
    throw new RouterApiOptionsError("tls needs ca or fingerprint to verify the router's certificate");
  }
  const pin = tls?.fingerprint === undefined ? undefined : normaliseFingerprint(tls.fingerprint);
  const port = options.port ?? (tls ? 8729 : 8728);
  const where = `${host}:${port}`;
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  return new Promise<Socket>((resolve, reject) => {
    const mismatch = (cert: PeerCertificate | undefined) => {
      if (!cert?.fingerprint256)
        return new Error("the router presented no certificate (anonymous api-ssl is refused)");
      if (cert.fingerprint256 !== pin) {
        return new Error(
          `certificate fingerprint sha256:${cert.fingerprint256} is not the pinned sha256:${pin}`,
        );
      }
      return undefined;
    };
    let socket: Socket | TLSSocket;
    if (!tls) socket = tcpConnect({ host, port });
    else {
      const servername = tls.servername ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
      socket = tlsConnect({
        host,
        port,
        ...(servername ? { servername } : {}),
        ...(tls.ca === undefined
          ? { rejectUnauthorized: false }
          : { ca: tls.ca as string | Buffer | (string | Buffer)[] }),
        ...(tls.ca !== undefined && pin
          ? { checkServerIdentity: (_name: string, cert: PeerCertificate) => mismatch(cert) }
          : {}),
      });
    }
    const timer = setTimeout(() => {
      fail(new RouterApiTimeoutError("connect", `no connection to ${where} within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.once("error", (error) => {
      const kind = tls ? "TLS connection" : "connection";
      fail(new RouterApiConnectionError(`${kind} to ${where} failed: ${error.message}`, { cause: error }));
    });
    socket.once(tls ? "secureConnect" : "connect", () => {
      if (tls && tls.ca === undefined) {
        const wrong = mismatch((socket as TLSSocket).getPeerCertificate());
        if (wrong)
          return fail(new RouterApiConnectionError(`TLS connection to ${where} refused: ${wrong.message}`));
      }
      clearTimeout(timer);
      socket.removeAllListeners("error");
      // Sentences are small and answered one by one: Nagle's wait would add a delayed ACK (40 ms) to each.
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}
