/**
 * A router that is a real RouterOS device: where the service reaches its API and how it verifies it, as the
 * admin API (`POST /admin/routers`, `/admin/seed`) takes it. No message here ever repeats the password.
 */
import { X509Certificate } from "node:crypto";
import * as z from "zod";
import { describeValue } from "./ids.js";
import { normaliseHostKeyFingerprint } from "./routers/device-endpoint.js";
import { textProblems } from "./text.js";
import { textField } from "./text-field.js";

export const DEVICE_HOST_MAX_CHARS = 253;
export const DEVICE_USER_MAX_CHARS = 100;
export const DEVICE_PASSWORD_MAX_CHARS = 256;
export const DEVICE_TLS_CA_MAX_CHARS = 32_768;

/** A DNS name or an IPv4 address, or an IPv6 address without brackets. */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?)*\.?$/;
const IPV6 = /^[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*$/;

/** `sha256:AA:BB:...` from any spelling the RouterOS API client accepts, or undefined. */
export function normaliseDeviceFingerprint(text: string): string | undefined {
  const hex = text
    .trim()
    .replace(/^sha256:/i, "")
    .replaceAll(":", "")
    .toUpperCase();
  return /^[0-9A-F]{64}$/.test(hex) ? `sha256:${hex.match(/../g)?.join(":")}` : undefined;
}

/** A password file's text: one trailing line break is the file's, not the password's. */
export function passwordFromFile(text: string): string {
  return text.replace(/\r?\n$/, "");
}

function isCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

const hostSchema = textField("host", { nonEmpty: true, maxChars: DEVICE_HOST_MAX_CHARS }).refine(
  (host) => HOST.test(host) || IPV6.test(host),
  {
    error: (issue) =>
      `host must be a DNS name, an IPv4 address or an IPv6 address without brackets (got ${describeValue(issue.input)})`,
  },
);

// Its own messages: the shared ones show the rejected value, and this value is a secret.
const passwordSchema = z.string({ error: "password must be a string" }).superRefine((password, ctx) => {
  const limits = { nonEmpty: true, maxChars: DEVICE_PASSWORD_MAX_CHARS };
  for (const message of textProblems("password", password, limits)) ctx.addIssue({ code: "custom", message });
});

export const deviceSchema = z
  .strictObject({
    host: hostSchema,
    port: z
      .number({ error: (issue) => `port must be a number (got ${describeValue(issue.input)})` })
      .int({ error: "port must be a whole number" })
      .min(1, { error: (issue) => `port must be 1 to 65535 (got ${issue.input})` })
      .max(65535, { error: (issue) => `port must be 1 to 65535 (got ${issue.input})` })
      .optional(),
    user: textField("user", { nonEmpty: true, maxChars: DEVICE_USER_MAX_CHARS }),
    password: passwordSchema,
    tls_fingerprint: z
      .string({ error: (issue) => `tls_fingerprint must be a string (got ${describeValue(issue.input)})` })
      .transform((text, ctx) => {
        const fingerprint = normaliseDeviceFingerprint(text);
        if (fingerprint) return fingerprint;
        ctx.addIssue({
          code: "custom",
          message: `tls_fingerprint must be sha256: and 32 bytes in hex, as AA:BB:... or 64 hex digits (got ${describeValue(text)})`,
        });
        return z.NEVER;
      })
      .optional(),
    tls_ca: textField("tls_ca", { nonEmpty: true, maxChars: DEVICE_TLS_CA_MAX_CHARS })
      .refine(isCertificate, { error: "tls_ca must be a PEM certificate (-----BEGIN CERTIFICATE-----)" })
      .optional(),
    plaintext: z.boolean({ error: "plaintext must be true or false" }).optional(),
    /** `api` (the default), `rest` (RouterOS 7's REST API on www-ssl) or `ssh` (its console): docs/routers.md. */
    transport: z
      .enum(["api", "rest", "ssh"], {
        error: (issue) => `transport must be "api", "rest" or "ssh" (got ${describeValue(issue.input)})`,
      })
      .optional(),
    /** Over SSH, the pinned fingerprint of the router's host key (what TLS's fingerprint is to the others). */
    ssh_host_key: z
      .string({ error: (issue) => `ssh_host_key must be a string (got ${describeValue(issue.input)})` })
      .transform((text, ctx) => {
        const fingerprint = normaliseHostKeyFingerprint(text);
        if (fingerprint) return fingerprint;
        ctx.addIssue({
          code: "custom",
          message: `ssh_host_key must be the host key's SHA-256 fingerprint as OpenSSH prints it, SHA256: and 43 base64 characters (got ${describeValue(text)})`,
        });
        return z.NEVER;
      })
      .optional(),
    /** A job's backup is also a binary backup (`.backup`) beside the export: docs/routers.md. */
    binary_backup: z.boolean({ error: "binary_backup must be true or false" }).optional(),
  })
  .superRefine((device, ctx) => {
    if (device.transport === "ssh" || device.ssh_host_key !== undefined) {
      if (device.transport !== "ssh") {
        ctx.addIssue({
          code: "custom",
          path: ["ssh_host_key"],
          message: 'ssh_host_key is for transport: "ssh" only',
        });
      } else if (device.ssh_host_key === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["ssh_host_key"],
          message:
            "give ssh_host_key, the SHA-256 fingerprint of the router's host key (SHA256:..., as ssh-keygen -l prints it), to verify the router over SSH",
        });
      }
      for (const field of ["tls_fingerprint", "tls_ca", "plaintext"] as const) {
        if (device[field] !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: [field],
            message: `transport: "ssh" is verified by ssh_host_key: leave out ${field}`,
          });
        }
      }
      return;
    }
    const verifications = [device.tls_fingerprint, device.tls_ca].filter((value) => value !== undefined);
    if (device.plaintext === true) {
      if (verifications.length > 0) {
        ctx.addIssue({
          code: "custom",
          path: [device.tls_fingerprint === undefined ? "tls_ca" : "tls_fingerprint"],
          message: "plaintext: true uses no TLS: leave out tls_fingerprint and tls_ca",
        });
      }
    } else if (verifications.length !== 1) {
      ctx.addIssue({
        code: "custom",
        path: ["tls_fingerprint"],
        message:
          verifications.length === 0
            ? "give tls_fingerprint or tls_ca to verify the router's certificate (or plaintext: true on a trusted network)"
            : "give tls_fingerprint or tls_ca, not both",
      });
    }
  });
export type Device = z.output<typeof deviceSchema>;
