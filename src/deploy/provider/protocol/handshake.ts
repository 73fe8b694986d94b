/**
 * go-plugin's handshake, as Terraform runs a provider: Terraform starts the executable with a magic cookie in
 * the environment (so that a plugin run by hand says what it is instead of waiting), the plugin protocol
 * versions it speaks, and, for automatic mutual TLS, the PEM certificate it will present as a client. The
 * plugin answers with one line on stdout: go-plugin's core protocol version, the app protocol version, the
 * network and address it listens on, `grpc`, and its own certificate (DER, base64 without padding) which
 * Terraform then trusts as the only root for this connection.
 */
import { X509Certificate } from "node:crypto";
import { UsageError } from "../../../errors.js";

export const MAGIC_COOKIE_KEY = "TF_PLUGIN_MAGIC_COOKIE";
export const MAGIC_COOKIE_VALUE = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
export const CORE_PROTOCOL_VERSION = 1;
export const APP_PROTOCOL_VERSION = 6;

export interface HandshakeEnvironment {
  /** PEM of the certificate Terraform presents; absent when Terraform runs without automatic mutual TLS. */
  readonly clientCert: string | undefined;
}

export function readHandshakeEnvironment(env: NodeJS.ProcessEnv): HandshakeEnvironment {
  if (env[MAGIC_COOKIE_KEY] !== MAGIC_COOKIE_VALUE)
    throw new UsageError(
      "terraform-provider-routerjobs is a Terraform plugin: Terraform starts it (terraform init, plan, apply); " +
        "it is not meant to be run by hand. Install it with `routerjobs provider install` (docs/provider.md).",
    );
  const offered = (env.PLUGIN_PROTOCOL_VERSIONS ?? String(APP_PROTOCOL_VERSION))
    .split(",")
    .map((version) => version.trim());
  if (!offered.includes(String(APP_PROTOCOL_VERSION)))
    throw new UsageError(
      `this provider speaks plugin protocol ${APP_PROTOCOL_VERSION}, and Terraform offered ${offered.join(", ")}: ` +
        "use Terraform 1.0 or later",
    );
  const clientCert = env.PLUGIN_CLIENT_CERT?.trim();
  return { clientCert: clientCert ? clientCert : undefined };
}

/** The line go-plugin reads from the plugin's stdout. */
export function handshakeLine(address: string, serverCertPem: string | undefined): string {
  const fields = [CORE_PROTOCOL_VERSION, APP_PROTOCOL_VERSION, "tcp", address, "grpc"].map(String);
  if (serverCertPem !== undefined) fields.push(certificateField(serverCertPem));
  return `${fields.join("|")}\n`;
}

/** DER in standard base64 with the padding left off (go-plugin decodes it with RawStdEncoding). */
export function certificateField(pem: string): string {
  return new X509Certificate(pem).raw.toString("base64").replace(/=+$/, "");
}

export interface ParsedHandshake {
  readonly coreVersion: number;
  readonly appVersion: number;
  readonly network: string;
  readonly address: string;
  readonly protocol: string;
  readonly certificateDer: Buffer | undefined;
}

/** Reads a handshake line as go-plugin does: for tests and for tools that start the provider themselves. */
export function parseHandshakeLine(line: string): ParsedHandshake {
  const parts = line.trim().split("|");
  const [core, app, network, address, protocol, cert] = parts;
  if (parts.length < 5 || !core || !app || !network || !address || !protocol)
    throw new UsageError(`not a plugin handshake line: ${JSON.stringify(line.slice(0, 80))}`);
  return {
    coreVersion: Number(core),
    appVersion: Number(app),
    network,
    address,
    protocol,
    certificateDer: cert ? Buffer.from(cert, "base64") : undefined,
  };
}
