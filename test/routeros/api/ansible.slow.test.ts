/**
 * Independent proof: Debian's Ansible with its community.routeros collection (GPL; installed by `.ci/run` as a
 * test tool) drives `routerjobs router simulate` as a network engineer drives a router: the `api` module (print,
 * add, query, update), `api_info`, `api_modify` of a firewall chain run twice (the second changes nothing and
 * keeps every rule's id), drift repaired with unset words, check and diff mode, `api_find_and_modify`, and
 * `api_facts` with its default subset. Over api-ssl with the certificate validated against the device's own
 * (its trust anchor), and over plain api. The playbook is written here, into a temporary directory.
 * Without ansible-playbook the tests skip with the reason, except under CI=true, where they fail.
 */

import { type ChildProcess, execFile, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allMenus } from "../../../src/routeros/simulator/all-menus.js";
import { startSimulate } from "../../helpers/device-process.js";
import { PASSWORD } from "./device.js";

const PYTHON = "/usr/bin/python3";

function ansibleAvailability(): { available: boolean } {
  const playbook = spawnSync("ansible-playbook", ["--version"], { encoding: "utf8" });
  const collection = spawnSync(PYTHON, ["-c", "import ansible_collections.community.routeros, librouteros"], {
    encoding: "utf8",
  });
  if (playbook.status === 0 && collection.status === 0) return { available: true };
  const reason =
    playbook.status !== 0
      ? "ansible-playbook is not installed (apt-get install -y ansible)"
      : `${PYTHON} cannot import community.routeros and librouteros (apt-get install -y ansible python3-librouteros)`;
  if (process.env.CI === "true") throw new Error(`${reason}: required in CI`);
  process.stdout.write(`skipping the Ansible peer tests: ${reason}\n`);
  return { available: false };
}

const ansible = ansibleAvailability();

interface Ready {
  readonly address: string;
  readonly certificate?: string;
}

async function startSimulator(dir: string, tls: boolean): Promise<{ child: ChildProcess; ready: Ready }> {
  return startSimulate<Ready>([
    "--api",
    "127.0.0.1:0",
    ...(tls ? ["--tls"] : []),
    "--user",
    "admin",
    "--password-file",
    join(dir, "password"),
    "--model",
    "hEX",
  ]);
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
}

/** What `ANSIBLE_STDOUT_CALLBACK=json` reports of each task, by task name. */
type TaskResults = Record<string, Record<string, unknown>>;

/** Runs a playbook (JSON is YAML) of `tasks` against the device; the module defaults carry the connection. */
async function runPlaybook(dir: string, connection: Record<string, unknown>, tasks: unknown[]) {
  const playbook = [
    {
      hosts: "localhost",
      gather_facts: false,
      module_defaults: { "group/community.routeros.api": connection },
      tasks,
    },
  ];
  const file = join(dir, `playbook-${Date.now()}.yml`);
  writeFileSync(file, JSON.stringify(playbook, null, 2));
  const { stdout } = await promisify(execFile)(
    "ansible-playbook",
    ["-i", "localhost,", "-c", "local", file],
    {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        ANSIBLE_STDOUT_CALLBACK: "json",
        ANSIBLE_PYTHON_INTERPRETER: PYTHON,
        ANSIBLE_LOCALHOST_WARNING: "false",
        ANSIBLE_NOCOLOR: "true",
      },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const report = JSON.parse(stdout) as {
    plays: { tasks: { task: { name: string }; hosts: { localhost: Record<string, unknown> } }[] }[];
  };
  const results: TaskResults = {};
  for (const task of report.plays[0]?.tasks ?? []) results[task.task.name] = task.hosts.localhost;
  return results;
}

const ids = (result: Record<string, unknown> | undefined, key: "old_data" | "new_data") =>
  ((result?.[key] as { ".id": string }[] | undefined) ?? []).map((entry) => entry[".id"]);

/**
 * The rules a playbook declares. community.routeros 2.8 (Debian's) knows no default for a rule's `log`,
 * `log-prefix` and `disabled`, which RouterOS prints on every rule; with `handle_entries_content: remove` a
 * rule must name them, against a real router as against this one (3.1 gave them defaults).
 */
const rules = [
  {
    chain: "input",
    action: "accept",
    "connection-state": "established,related",
    comment: "accept established",
    log: false,
    "log-prefix": "",
    disabled: false,
  },
  {
    chain: "input",
    action: "drop",
    "in-interface": "ether1",
    comment: "drop wan",
    log: false,
    "log-prefix": "",
    disabled: false,
  },
];
const chain = {
  path: "ip firewall filter",
  data: rules,
  handle_absent_entries: "remove",
  handle_entries_content: "remove",
};

describe.skipIf(!ansible.available)(
  "Ansible's community.routeros against `routerjobs router simulate`",
  () => {
    let dir: string;
    let tlsDevice: { child: ChildProcess; ready: Ready } | undefined;
    let plainDevice: { child: ChildProcess; ready: Ready } | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "routerjobs-ansible-"));
      writeFileSync(join(dir, "password"), `${PASSWORD}\n`, { mode: 0o600 });
      [tlsDevice, plainDevice] = await Promise.all([startSimulator(dir, true), startSimulator(dir, false)]);
      writeFileSync(join(dir, "device-ca.pem"), tlsDevice.ready.certificate ?? "");
    });

    afterAll(async () => {
      await Promise.all([stop(tlsDevice?.child), stop(plainDevice?.child)]);
      rmSync(dir, { recursive: true, force: true });
    });

    const connection = (device: { ready: Ready } | undefined, tls: boolean) => ({
      hostname: "127.0.0.1",
      port: Number(device?.ready.address.split(":")[1]),
      username: "admin",
      password: PASSWORD,
      tls,
      ...(tls
        ? { validate_certs: true, validate_cert_hostname: true, ca_path: join(dir, "device-ca.pem") }
        : {}),
    });

    it("over api-ssl with a validated certificate: api, api_info, api_modify twice, drift, check and diff mode, api_find_and_modify, api_facts", async () => {
      const results = await runPlaybook(dir, connection(tlsDevice, true), [
        { name: "print", "community.routeros.api": { path: "ip address" } },
        {
          name: "add",
          "community.routeros.api": { path: "ip address", add: "address=10.7.0.1/24 interface=ether2" },
        },
        {
          name: "query",
          "community.routeros.api": {
            path: "ip address",
            query: "address interface WHERE interface == ether2",
          },
        },
        { name: "info", "community.routeros.api_info": { path: "ip firewall filter" } },
        { name: "modify", "community.routeros.api_modify": chain },
        { name: "modify again", "community.routeros.api_modify": chain },
        {
          name: "drift",
          "community.routeros.api": { path: "ip firewall filter", update: ".id=*1 src-address=192.0.2.0/24" },
        },
        { name: "repair drift", "community.routeros.api_modify": chain },
        {
          name: "check and diff",
          "community.routeros.api_modify": { ...chain, data: rules.slice(0, 1) },
          check_mode: true,
          diff: true,
        },
        { name: "after check", "community.routeros.api_info": { path: "ip firewall filter" } },
        {
          name: "find and modify",
          "community.routeros.api_find_and_modify": {
            path: "ip address",
            find: { address: "10.7.0.1/24" },
            values: { comment: "found by ansible" },
          },
        },
        {
          name: "find and modify again",
          "community.routeros.api_find_and_modify": {
            path: "ip address",
            find: { address: "10.7.0.1/24" },
            values: { comment: "found by ansible" },
          },
        },
        { name: "facts", "community.routeros.api_facts": {} },
      ]);
      for (const [name, result] of Object.entries(results))
        expect({ name, failed: result.failed ?? false }).toEqual({ name, failed: false });
      expect(results.print?.msg).toEqual([
        expect.objectContaining({
          ".id": "*1",
          address: "192.168.88.1/24",
          interface: "bridge",
          disabled: false,
        }),
      ]);
      expect(results.add).toMatchObject({
        changed: true,
        msg: [expect.stringMatching(/^added: \.id= \*[0-9A-F]+$/)],
      });
      expect(results.query?.msg).toEqual([{ address: "10.7.0.1/24", interface: "ether2" }]);
      expect(results.info?.result).toHaveLength(11);

      // The first run makes the chain (keeping two of defconf's rules, changed); the second changes nothing.
      expect(results.modify?.changed).toBe(true);
      const made = ids(results.modify, "new_data");
      expect(made).toHaveLength(2);
      expect(results["modify again"]).toMatchObject({ changed: false });
      expect(ids(results["modify again"], "old_data")).toEqual(made);
      expect(ids(results["modify again"], "new_data")).toEqual(made);
      // A property added behind Ansible's back is unset (`=!src-address=`) on the same rule, not by a re-add.
      expect(results["repair drift"]?.changed).toBe(true);
      expect(ids(results["repair drift"], "new_data")).toEqual(made);
      expect(results["repair drift"]?.new_data).not.toContainEqual(
        expect.objectContaining({ "src-address": expect.anything() }),
      );

      // Check mode reports the removal it would make and its diff, and changes nothing.
      expect(results["check and diff"]).toMatchObject({
        changed: true,
        diff: { before: expect.anything(), after: expect.anything() },
      });
      expect(ids(results["check and diff"], "new_data")).toEqual(made.slice(0, 1));
      expect(results["after check"]?.result).toHaveLength(2);

      expect(results["find and modify"]).toMatchObject({ changed: true, match_count: 1, modify_count: 1 });
      expect(results["find and modify again"]).toMatchObject({ changed: false });

      expect(results.facts?.ansible_facts).toMatchObject({
        ansible_net_hostname: "MikroTik",
        ansible_net_version: "7.24 (stable)",
        ansible_net_arch: "mmips",
        ansible_net_model: "RB750Gr3",
        ansible_net_serialnum: expect.stringMatching(/^[0-9A-Z]{11}$/),
        ansible_net_memtotal_mb: 256,
        ansible_net_spacetotal_mb: 16,
        ansible_net_cpu_load: 1,
        ansible_net_uptime: expect.stringMatching(/^(\d+[wdhm])*\d+s$/),
        ansible_net_all_ipv4_addresses: ["192.168.88.1", "10.7.0.1"],
      });
    });

    it("over plain api: print and api_facts", async () => {
      const results = await runPlaybook(dir, connection(plainDevice, false), [
        { name: "identity", "community.routeros.api": { path: "system identity" } },
        { name: "facts", "community.routeros.api_facts": { gather_subset: ["default", "hardware"] } },
      ]);
      expect(results.identity).toMatchObject({ msg: [{ name: "MikroTik" }] });
      expect(results.facts?.ansible_facts).toMatchObject({
        ansible_net_memfree_mb: 225,
        ansible_net_model: "RB750Gr3",
      });
    });

    it("prints no property at a default that community.routeros would take for a value to unset", () => {
      // The collection's own table of each path's fields: read here, never copied.
      const probe = spawnSync(
        PYTHON,
        [
          "-c",
          [
            "import json",
            "from ansible_collections.community.routeros.plugins.module_utils._api_data import PATHS",
            "out = {}",
            "for path, data in PATHS.items():",
            "    data = getattr(data, 'fallback', data) if not hasattr(data, 'fields') else data",
            "    if hasattr(data, 'fields'):",
            "        out[' '.join(path)] = {k: [v.default is not None, v.can_disable] for k, v in data.fields.items()}",
            "print(json.dumps(out))",
          ].join("\n"),
        ],
        { encoding: "utf8" },
      );
      expect(probe.status).toBe(0);
      const fields = JSON.parse(probe.stdout) as Record<string, Record<string, [boolean, boolean]>>;
      const unsetEveryRun: string[] = [];
      for (const menu of allMenus()) {
        const known = fields[menu.path.join(" ")];
        if (!known || menu.generic) continue;
        for (const [name, def] of Object.entries(menu.properties)) {
          const [hasDefault, canDisable] = known[name] ?? [true, false];
          // Printed whatever was written (a default, outside a rule menu's sparse print) where Ansible has none.
          const printedUnwritten =
            def.default !== undefined && (!menu.sparsePrint || menu.apiAlways?.includes(name));
          if (printedUnwritten && canDisable && !hasDefault)
            unsetEveryRun.push(`${menu.path.join(" ")} ${name}`);
        }
      }
      expect(unsetEveryRun).toEqual([]);
    });
  },
);
