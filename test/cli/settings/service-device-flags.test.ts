/** The device flags of `service router add`, without a service: address parsing and the rules between flags. */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFromFlags, parseAddress } from "../../../src/cli/settings/service-device-flags.js";
import { UsageError } from "../../../src/errors.js";

const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const hostName = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join("."));
const ipv6 = fc.ipV6();
const port = fc.integer({ min: 1, max: 65535 });

describe("parseAddress", () => {
  it("reads HOST, HOST:PORT, [IPV6], [IPV6]:PORT and a bare IPv6 address", () => {
    fc.assert(
      fc.property(hostName, ipv6, port, (host, v6, number) => {
        expect(parseAddress(host)).toEqual({ host });
        expect(parseAddress(`${host}:${number}`)).toEqual({ host, port: number });
        expect(parseAddress(`[${v6}]`)).toEqual({ host: v6 });
        expect(parseAddress(`[${v6}]:${number}`)).toEqual({ host: v6, port: number });
        if (v6.split(":").length > 2) expect(parseAddress(v6)).toEqual({ host: v6 });
      }),
    );
  });

  it("refuses a port out of range or not a number, and an empty host, naming the flag", () => {
    for (const bad of ["h:0", "h:65536", "h:x", "h:", "[::1]:99999", ":8729", "a b"]) {
      expect(() => parseAddress(bad), bad).toThrow(UsageError);
      expect(() => parseAddress(bad), bad).toThrow(/^--address/);
    }
  });
});

describe("deviceFromFlags", () => {
  let dir: string;
  let passwordFile: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-device-flags-"));
    passwordFile = join(dir, "password");
    await writeFile(passwordFile, "pass word\r\n", { mode: 0o600 });
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("no --address, no device; the password is the file less one line break", async () => {
    expect(await deviceFromFlags({})).toBeUndefined();
    expect(
      await deviceFromFlags({ address: "r1:8729", user: "u", passwordFile, tlsFingerprint: "sha256:AA" }),
    ).toEqual({ host: "r1", port: 8729, user: "u", password: "pass word", tls_fingerprint: "sha256:AA" });
  });

  it("--binary-backup sets binary_backup in the device, and needs --address", async () => {
    const flags = { address: "r1", user: "u", passwordFile, tlsFingerprint: "sha256:AA" };
    expect(await deviceFromFlags({ ...flags, binaryBackup: true })).toEqual({
      host: "r1",
      user: "u",
      password: "pass word",
      tls_fingerprint: "sha256:AA",
      binary_backup: true,
    });
    expect(await deviceFromFlags(flags)).not.toHaveProperty("binary_backup");
    await expect(deviceFromFlags({ binaryBackup: true })).rejects.toThrow(
      /--binary-backup and --transport need --address/,
    );
  });

  it("--transport rest sets transport in the device; api is the default; anything else is refused", async () => {
    const flags = { address: "r1", user: "u", passwordFile, tlsFingerprint: "sha256:AA" };
    expect(await deviceFromFlags({ ...flags, transport: "rest" })).toMatchObject({ transport: "rest" });
    expect(await deviceFromFlags({ ...flags, transport: "api" })).not.toHaveProperty("transport");
    await expect(deviceFromFlags({ ...flags, transport: "ssh2" })).rejects.toThrow(
      '--transport must be api, rest or ssh (got "ssh2")',
    );
    await expect(deviceFromFlags({ transport: "rest" })).rejects.toThrow(/--transport need --address/);
  });

  it("--transport ssh needs --ssh-host-key and takes no TLS flag; --ssh-host-key is for ssh only", async () => {
    const flags = { address: "r1:2222", user: "u", passwordFile, transport: "ssh" };
    const hostKey = `SHA256:${"A".repeat(43)}`;
    expect(await deviceFromFlags({ ...flags, sshHostKey: hostKey })).toEqual({
      host: "r1",
      port: 2222,
      user: "u",
      password: "pass word",
      transport: "ssh",
      ssh_host_key: hostKey,
    });
    await expect(deviceFromFlags(flags)).rejects.toThrow(/--transport ssh needs --ssh-host-key SHA256:/);
    await expect(
      deviceFromFlags({ ...flags, sshHostKey: hostKey, tlsFingerprint: "sha256:AA" }),
    ).rejects.toThrow(/--transport ssh is verified by --ssh-host-key: leave out the TLS flags/);
    await expect(
      deviceFromFlags({ address: "r1", user: "u", passwordFile, plaintext: true, sshHostKey: hostKey }),
    ).rejects.toThrow("--ssh-host-key is for --transport ssh");
  });

  it("a missing file names the flag and the path, and nothing of any content", async () => {
    await expect(
      deviceFromFlags({ address: "r1", user: "u", passwordFile: join(dir, "none"), plaintext: true }),
    ).rejects.toThrow(`--password-file: cannot read ${join(dir, "none")}: ENOENT`);
  });
});
