/**
 * The device flags of `routerjobs service router add`: the `device` object of `POST /admin/routers`, built from
 * flags and files. The password comes only from a file: a flag would put it in the process list and the shell's
 * history. The service checks the limits again; these checks only spare a round trip and name the flag.
 */
import { readFile } from "node:fs/promises";
import { UsageError } from "../../errors.js";

export interface DeviceFlags {
  address?: string;
  user?: string;
  passwordFile?: string;
  tlsFingerprint?: string;
  tlsCa?: string;
  plaintext?: boolean;
  binaryBackup?: boolean;
  transport?: string;
  sshHostKey?: string;
}

/** `HOST`, `HOST:PORT`, `[IPV6]`, `[IPV6]:PORT`, or a bare IPv6 address (no port). */
export function parseAddress(address: string): { host: string; port?: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(address);
  const colons = address.split(":").length - 1;
  const [host, portText] = bracketed
    ? [bracketed[1] as string, bracketed[2]]
    : colons === 1
      ? (address.split(":") as [string, string])
      : [address, undefined];
  if (host === "" || /\s/.test(host)) {
    throw new UsageError(`--address must be HOST[:PORT] or [IPV6]:PORT (got ${JSON.stringify(address)})`);
  }
  if (portText === undefined) return { host };
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535) {
    throw new UsageError(`--address: the port must be 1 to 65535 (got ${JSON.stringify(portText)})`);
  }
  return { host, port };
}

async function readFlagFile(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    // The system's reason code only: the content of a password file must not reach a message.
    throw new UsageError(`${flag}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
  }
}

/** The `device` object, or undefined without `--address`; any other device flag alone is a usage error. */
export async function deviceFromFlags(flags: DeviceFlags): Promise<Record<string, unknown> | undefined> {
  const others = (
    [
      "user",
      "passwordFile",
      "tlsFingerprint",
      "tlsCa",
      "plaintext",
      "binaryBackup",
      "transport",
      "sshHostKey",
    ] as const
  ).filter((key) => flags[key] !== undefined);
  if (!flags.address) {
    if (others.length > 0) {
      throw new UsageError(
        "--user, --password-file, the TLS flags, --ssh-host-key, --binary-backup and --transport need --address",
      );
    }
    return undefined;
  }
  if (flags.transport !== undefined && !["api", "rest", "ssh"].includes(flags.transport)) {
    throw new UsageError(`--transport must be api, rest or ssh (got ${JSON.stringify(flags.transport)})`);
  }
  if (!flags.user) throw new UsageError("--address needs --user (the RouterOS user the service logs in as)");
  if (!flags.passwordFile) {
    throw new UsageError("--address needs --password-file (a file holding the password; never a flag)");
  }
  if (flags.transport === "ssh") {
    if (flags.tlsFingerprint !== undefined || flags.tlsCa !== undefined || flags.plaintext) {
      throw new UsageError(
        "--transport ssh is verified by --ssh-host-key: leave out the TLS flags and --plaintext",
      );
    }
    if (!flags.sshHostKey) {
      throw new UsageError(
        "--transport ssh needs --ssh-host-key SHA256:... (the router's host key: ssh-keygen -l -f it, or what router simulate prints)",
      );
    }
  } else if (flags.sshHostKey !== undefined) {
    throw new UsageError("--ssh-host-key is for --transport ssh");
  }
  const verifications = [flags.tlsFingerprint, flags.tlsCa].filter((value) => value !== undefined).length;
  if (flags.transport !== "ssh" && flags.plaintext && verifications > 0) {
    throw new UsageError("--plaintext uses no TLS: leave out --tls-fingerprint and --tls-ca");
  }
  if (flags.transport !== "ssh" && !flags.plaintext && verifications !== 1) {
    throw new UsageError(
      "--address needs exactly one of --tls-fingerprint sha256:... or --tls-ca FILE (or --plaintext on a trusted network)",
    );
  }
  const { passwordFromFile } = await import("../../contract/device.js");
  const password = passwordFromFile(await readFlagFile(flags.passwordFile, "--password-file"));
  return {
    ...parseAddress(flags.address),
    user: flags.user,
    password,
    ...(flags.tlsFingerprint ? { tls_fingerprint: flags.tlsFingerprint } : {}),
    ...(flags.tlsCa ? { tls_ca: await readFlagFile(flags.tlsCa, "--tls-ca") } : {}),
    ...(flags.plaintext ? { plaintext: true } : {}),
    ...(flags.binaryBackup ? { binary_backup: true } : {}),
    ...(flags.transport === "rest" || flags.transport === "ssh" ? { transport: flags.transport } : {}),
    ...(flags.sshHostKey ? { ssh_host_key: flags.sshHostKey } : {}),
  };
}

export const PLAINTEXT_WARNING =
  "routerjobs: warning: --plaintext: the service logs in to this router over plain TCP, and the password crosses the network in clear text; use it only on a trusted network or a loopback test device\n";
