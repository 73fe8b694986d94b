/**
 * `router simulate --ssh` driven by OpenSSH's own client, as an operator would: public-key login with a key
 * from ssh-keygen and the host key pinned from the ready line, password login through SSH_ASKPASS (the
 * password never on a command line), exec of console lines, a shell, and one router behind SSH and the API.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { RouterApiClient } from "../../../../src/routeros/api/client.js";
import { runCli } from "../../../helpers/cli.js";
import { scratchDir } from "../../../helpers/scratch.js";

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const SSH = "/usr/bin/ssh";
const PASSWORD = "s3cret-over-ssh";
const available = existsSync(SSH) && existsSync("/usr/bin/ssh-keygen");
if (!available && process.env.CI !== "true") {
  console.log(`skipped: ${SSH} or ssh-keygen is missing (Debian: apt-get install -y openssh-client)`);
}

interface Ready {
  readonly address: string;
  readonly ssh: { readonly address: string; readonly hostKey: string; readonly fingerprint: string };
}

interface Device {
  readonly ready: Ready;
  readonly sshPort: number;
  readonly apiPort: number;
  stop(): Promise<void>;
}

let dir: string;
let passwordFile: string;
let key: string;
let strangerKey: string;

function keygen(path: string): void {
  const result = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", path]);
  if (result.status !== 0) throw new Error(`ssh-keygen failed: ${result.stderr.toString()}`);
}

beforeAll(() => {
  dir = scratchDir("routerjobs-ssh-");
  passwordFile = join(dir, "password");
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  key = join(dir, "id_ed25519");
  strangerKey = join(dir, "stranger");
  keygen(key);
  keygen(strangerKey);
  writeFileSync(join(dir, "authorized_keys"), `# the operator's key\n${readPublic(key)}\n`);
});

const readPublic = (path: string) => readFileSync(`${path}.pub`, "utf8").trim();

async function startDevice(extra: readonly string[] = []): Promise<Device> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "bin/routerjobs.js",
      "router",
      "simulate",
      "--api",
      "127.0.0.1:0",
      "--ssh",
      "127.0.0.1:0",
      "--ssh-authorized-keys",
      join(dir, "authorized_keys"),
      "--user",
      "admin",
      "--password-file",
      passwordFile,
      ...extra,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  if (!child.stdout) throw new Error("no stdout");
  // A device that exits before its ready line fails the test with its exit code, not at the test's deadline.
  const exited = once(child, "exit").then(([code, signal]) => {
    throw new Error(`router simulate exited before its ready line (${signal ?? `exit ${code}`})`);
  });
  const [line] = (await Promise.race([once(createInterface({ input: child.stdout }), "line"), exited])) as [
    string,
  ];
  exited.catch(() => {});
  const ready = JSON.parse(line) as Ready;
  return {
    ready,
    sshPort: Number(ready.ssh.address.split(":")[1]),
    apiPort: Number(ready.address.split(":")[1]),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

/** A known_hosts file pinning `hostKey` for the device's SSH address. */
function knownHosts(device: Device, hostKey = device.ready.ssh.hostKey): string {
  const file = join(dir, `known_hosts-${device.sshPort}-${hostKey.length}-${Math.random()}`);
  writeFileSync(file, `[127.0.0.1]:${device.sshPort} ${hostKey}\n`);
  return file;
}

interface SshResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function ssh(
  device: Device,
  args: readonly string[],
  options: { knownHosts?: string; env?: Record<string, string>; input?: string; batch?: boolean } = {},
): Promise<SshResult> {
  const child = spawn(
    SSH,
    [
      "-F",
      "/dev/null",
      "-p",
      String(device.sshPort),
      "-o",
      `UserKnownHostsFile=${options.knownHosts ?? knownHosts(device)}`,
      "-o",
      "GlobalKnownHostsFile=/dev/null",
      "-o",
      "StrictHostKeyChecking=yes",
      "-o",
      "LogLevel=ERROR",
      ...(options.batch === false ? [] : ["-o", "BatchMode=yes"]),
      ...args,
    ],
    { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(options.input ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A RouterOS API session with the device, beside its SSH console. */
const apiOf = (device: Device) =>
  RouterApiClient.connect({
    host: "127.0.0.1",
    port: device.apiPort,
    user: "admin",
    password: PASSWORD,
    allowPlaintext: true,
  });
const withKey = (path: string) => ["-i", path, "-o", "IdentitiesOnly=yes", "-o", "PasswordAuthentication=no"];
const exec = (device: Device, command: string) => ssh(device, [...withKey(key), "admin@127.0.0.1", command]);
const textOf = (result: SshResult) => result.stdout.replace(/\r\n/g, "\n");

describe.runIf(available || process.env.CI === "true")("router simulate --ssh, with OpenSSH's client", () => {
  it("runs console lines over exec with a key login, and the API sees the change", async () => {
    const device = await startDevice();
    try {
      // The fingerprint is the one OpenSSH computes from the key.
      const hostPublic = join(dir, "host.pub");
      writeFileSync(hostPublic, `${device.ready.ssh.hostKey}\n`);
      const listed = spawnSync("ssh-keygen", ["-l", "-f", hostPublic]).stdout.toString();
      expect(listed.split(" ")[1]).toBe(device.ready.ssh.fingerprint);
      const identity = await exec(device, "/system identity print");
      expect(identity.stderr).toBe("");
      expect([identity.status, textOf(identity)]).toEqual([0, "  name: MikroTik\n"]);

      const added = await exec(
        device,
        '/ip address add address=10.9.0.1/24 interface=ether2 comment="lab net"; /ip address print',
      );
      expect(added.status).toBe(0);
      expect(textOf(added)).toBe(
        [
          "Columns: ADDRESS, NETWORK, INTERFACE",
          "# ADDRESS      NETWORK   INTERFACE",
          ";;; lab net",
          "0 10.9.0.1/24  10.9.0.0  ether2",
          "",
        ].join("\n"),
      );
      const exported = await exec(device, "/export");
      expect(exported.status).toBe(0);
      expect(textOf(exported)).toContain(
        '/ip address\nadd address=10.9.0.1/24 comment="lab net" interface=ether2',
      );

      const refused = await exec(device, "/ip address add address=10.9.0.1/24 interface=ether2");
      expect(refused.status).toBe(1);
      expect(textOf(refused)).toBe("failure: already have such address\n");
      const syntax = await exec(device, ":put (1 +");
      expect([syntax.status, textOf(syntax)]).toEqual([1, "syntax error (line 1 column 10)\n"]);

      const api = await apiOf(device);
      try {
        const reply = await api.command({ command: "/ip/address/print", proplist: ["address", "comment"] });
        expect(reply.records).toEqual([{ address: "10.9.0.1/24", comment: "lab net" }]);
      } finally {
        api.close();
      }
    } finally {
      await device.stop();
    }
  });

  it("refuses a key it was not given, a wrong host key, and a wrong password; takes the right password", async () => {
    const device = await startDevice();
    try {
      const stranger = await ssh(device, [...withKey(strangerKey), "admin@127.0.0.1", ":put x"]);
      expect(stranger.status).toBe(255);
      expect(stranger.stderr).toContain("Permission denied");

      // Another device's host key pinned for this address: ssh must not talk to it.
      const other = await startDevice();
      const wrongHost = await ssh(device, [...withKey(key), "admin@127.0.0.1", ":put x"], {
        knownHosts: knownHosts(device, other.ready.ssh.hostKey),
      });
      await other.stop();
      expect(wrongHost.status).toBe(255);
      expect(wrongHost.stderr).toMatch(/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/);
      expect(wrongHost.stdout).toBe("");

      // OpenSSH reads a password from a terminal or from SSH_ASKPASS; the helper prints it from the file.
      const askpass = join(dir, "askpass.sh");
      writeFileSync(askpass, `#!/bin/sh\nexec cat "$PASSWORD_FILE"\n`, { mode: 0o700 });
      const byPassword = (file: string) =>
        ssh(
          device,
          [
            "-o",
            "PubkeyAuthentication=no",
            "-o",
            "PreferredAuthentications=password",
            "-o",
            "NumberOfPasswordPrompts=1",
            "admin+ct80w@127.0.0.1",
            "/system identity print",
          ],
          {
            batch: false,
            env: { SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: "force", PASSWORD_FILE: file, DISPLAY: ":0" },
          },
        );
      const right = await byPassword(passwordFile);
      expect([right.status, textOf(right)]).toEqual([0, "  name: MikroTik\n"]);
      const wrongFile = join(dir, "wrong-password");
      writeFileSync(wrongFile, "not-it\n", { mode: 0o600 });
      const wrong = await byPassword(wrongFile);
      expect(wrong.status).toBe(255);
      expect(wrong.stderr).toContain("Permission denied");
    } finally {
      await device.stop();
    }
  });

  it("serves a shell with the prompt, menu moves and quit, and keeps its host key across a restart", async () => {
    const stateFile = join(dir, "state.json");
    const first = await startDevice(["--state-file", stateFile]);
    const pinned = knownHosts(first);
    let shell: SshResult;
    try {
      shell = await ssh(first, [...withKey(key), "-T", "admin@127.0.0.1"], {
        knownHosts: pinned,
        input: '/system identity set name=edge\n/ip route\n:put "in a menu"\nquit\n',
      });
    } finally {
      await first.stop();
    }
    expect(shell.status).toBe(0);
    const text = textOf(shell);
    expect(text).toContain("Press F1 for help");
    expect(text).toContain("[admin@MikroTik] > [admin@edge] > [admin@edge] /ip/route> in a menu\n");
    expect(text.trimEnd().endsWith("interrupted")).toBe(true);

    const second = await startDevice(["--state-file", stateFile]);
    try {
      expect(second.ready.ssh.hostKey).toBe(first.ready.ssh.hostKey);
      // The key pinned at the first start (at the new port: port 0 picked another one) still lets ssh in.
      const again = await ssh(second, [...withKey(key), "admin@127.0.0.1", "/system identity print"], {
        knownHosts: knownHosts(second, first.ready.ssh.hostKey),
      });
      expect(textOf(again)).toBe("  name: edge\n");
    } finally {
      await second.stop();
    }
  });
  it("echoes what is typed on a terminal (ssh -tt) and ends the session on quit", async () => {
    const device = await startDevice();
    try {
      const shell = await ssh(device, [...withKey(key), "-tt", "admin@127.0.0.1"], {
        input: "/ip address print count-only\rquit\r",
      });
      expect(shell.status).toBe(0);
      // Typed-ahead input is echoed as it arrives, so only the pieces, not their interleaving, are fixed.
      expect(shell.stdout).toContain("[admin@MikroTik] > /ip address print count-only\r\n");
      expect(shell.stdout).toContain("\r\n0\r\n");
      expect(shell.stdout).toContain("interrupted\r\n");
    } finally {
      await device.stop();
    }
  });

  it("holds its firewall against SSH clients: a drop of the ssh port cuts the shell off, the API stays", async () => {
    const device = await startDevice();
    const api = await apiOf(device);
    try {
      // GIVEN a shell that reaches the device; WHEN its first line drops 127.0.0.1 to the ssh service's port
      const shell = await ssh(device, [...withKey(key), "-T", "admin@127.0.0.1"], {
        input: [
          "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=22 src-address=127.0.0.1",
          "/system identity set name=after-the-cut",
          "",
        ].join("\n"),
      });
      // THEN the line after the cut never runs, the session is closed, and a new connection gets no login
      expect(shell.status).not.toBe(0);
      const identity = await api.command({ command: "/system/identity/print" });
      expect(identity.records[0]?.name).toBe("MikroTik");
      const again = await exec(device, "/system identity print");
      expect(again.status).toBe(255);
      expect(again.stdout).toBe("");
      // AND the API, whose port the rule leaves open, still answers: through it the rule goes, and SSH is back
      const rules = await api.command({ command: "/ip/firewall/filter/print", queries: ["?dst-port=22"] });
      const id = String(rules.records[0]?.[".id"]);
      await api.command({ command: "/ip/firewall/filter/remove", attributes: { ".id": id } });
      expect(textOf(await exec(device, "/system identity print"))).toContain("name: MikroTik");
    } finally {
      api.close();
      await device.stop();
    }
  });

  it("refuses to start with an authorized_keys file that holds no key, naming the file and the line", async () => {
    const bad = join(dir, "bad_keys");
    writeFileSync(bad, `${readPublic(key)}\nssh-rsa not-base64-at-all\n`);
    const result = await runCli([
      "router",
      "simulate",
      "--api",
      "127.0.0.1:0",
      "--ssh",
      "127.0.0.1:0",
      "--ssh-authorized-keys",
      bad,
      "--user",
      "admin",
      "--password-file",
      passwordFile,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--ssh-authorized-keys ${bad} line 2 is not an OpenSSH public key`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const unreadable = await runCli([
      "router",
      "simulate",
      "--ssh",
      "127.0.0.1:0",
      "--ssh-authorized-keys",
      join(dir, "nowhere"),
      "--user",
      "admin",
      "--password-file",
      passwordFile,
    ]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toContain("cannot be read: ENOENT");
  });
});
