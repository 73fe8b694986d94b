/**
 * Ansible's `community.routeros.command` and `facts` over `network_cli` (paramiko) against
 * `router simulate --ssh`: the console as Ansible reads a RouterOS router's (its prompt regex, the echo it
 * strips, `bad command name` as an error), with the host key pinned in known_hosts.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchDir } from "../../../helpers/scratch.js";

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));

function missing(): string | undefined {
  if (spawnSync("ansible-playbook", ["--version"]).status !== 0) return "ansible-playbook is missing";
  if (spawnSync("/usr/bin/python3", ["-c", "import paramiko"]).status !== 0)
    return "python3-paramiko is missing";
  const collections = spawnSync("ansible-galaxy", ["collection", "list"]).stdout?.toString() ?? "";
  if (!/community\.routeros/.test(collections) || !/ansible\.netcommon/.test(collections))
    return "the community.routeros or ansible.netcommon collection is missing";
  if (!existsSync("/usr/bin/ssh-keygen")) return "ssh-keygen is missing";
  return undefined;
}
const why = missing();
if (why && process.env.CI !== "true")
  console.log(`skipped: ${why} (Debian: apt-get install -y ansible python3-paramiko)`);

const playbook = `
- hosts: routers
  gather_facts: false
  tasks:
    - community.routeros.command:
        commands:
          - /system identity print
          - /ip address add address=10.7.0.1/24 interface=ether2 comment=ansible
          - /ip address print where comment=ansible
      register: out
    - community.routeros.facts:
        gather_subset: [default, interfaces]
      register: facts
    - copy:
        dest: "{{ result_file }}"
        content: "{{ {'stdout': out.stdout_lines, 'facts': facts.ansible_facts} | to_json }}"
      delegate_to: localhost
`;

describe.runIf(!why || process.env.CI === "true")("Ansible's community.routeros over SSH", () => {
  it("runs commands and gathers facts through network_cli with a pinned host key", async () => {
    const dir = scratchDir("routerjobs-ansible-ssh-");
    writeFileSync(join(dir, "password"), "s3cret-ansible\n", { mode: 0o600 });
    const key = join(dir, "id_ed25519");
    expect(spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key]).status).toBe(0);
    const child = spawn(
      process.execPath,
      [
        "bin/routerjobs.js",
        "router",
        "simulate",
        "--model",
        "hAP ax3",
        "--api",
        "127.0.0.1:0",
        "--ssh",
        "127.0.0.1:0",
        "--ssh-authorized-keys",
        `${key}.pub`,
        "--user",
        "admin",
        "--password-file",
        join(dir, "password"),
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
      const ready = JSON.parse(line) as { ssh: { address: string; hostKey: string } };
      const port = ready.ssh.address.split(":")[1];
      // paramiko reads ~/.ssh/known_hosts: a home of the test's own, pinning the device's key.
      const home = join(dir, "home");
      mkdirSync(join(home, ".ssh"), { recursive: true });
      writeFileSync(join(home, ".ssh", "known_hosts"), `[127.0.0.1]:${port} ${ready.ssh.hostKey}\n`);
      writeFileSync(
        join(dir, "inventory.ini"),
        [
          "[routers]",
          `sim ansible_host=127.0.0.1 ansible_port=${port}`,
          "[routers:vars]",
          "ansible_connection=ansible.netcommon.network_cli",
          "ansible_network_os=community.routeros.routeros",
          // RouterOS's console options, as community.routeros's documentation asks: no colours, no detection.
          "ansible_user=admin+cet1024w",
          `ansible_ssh_private_key_file=${key}`,
        ].join("\n"),
      );
      writeFileSync(join(dir, "play.yml"), playbook);
      const resultFile = join(dir, "result.json");
      const run = spawn(
        "ansible-playbook",
        ["-i", join(dir, "inventory.ini"), join(dir, "play.yml"), "-e", `result_file=${resultFile}`],
        {
          cwd: dir,
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: home,
            ANSIBLE_HOST_KEY_CHECKING: "True",
            ANSIBLE_NETWORK_CLI_SSH_TYPE: "paramiko",
            ANSIBLE_LOCAL_TEMP: join(dir, "tmp"),
            ANSIBLE_NOCOLOR: "1",
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let log = "";
      run.stdout.on("data", (chunk: Buffer) => {
        log += chunk.toString();
      });
      run.stderr.on("data", (chunk: Buffer) => {
        log += chunk.toString();
      });
      const [code] = await once(run, "exit");
      expect(code, log).toBe(0);
      const result = JSON.parse(readFileSync(resultFile, "utf8")) as {
        stdout: string[][];
        facts: { ansible_net_hostname: string; ansible_net_all_ipv4_addresses: string[] };
      };
      expect(result.stdout[0]).toEqual(["name: MikroTik"]);
      expect(result.stdout[2]).toEqual([
        "Columns: ADDRESS, NETWORK, INTERFACE",
        "# ADDRESS      NETWORK   INTERFACE",
        ";;; ansible",
        "0 10.7.0.1/24  10.7.0.0  ether2",
      ]);
      expect(result.facts.ansible_net_hostname).toBe("MikroTik");
      expect(result.facts.ansible_net_all_ipv4_addresses).toContain("10.7.0.1");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});
