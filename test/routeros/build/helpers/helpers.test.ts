/**
 * The helpers' scripts against the project's simulated RouterOS router (the real interpreter and menus), so
 * "runs again without failing" and "values arrive unchanged" are checked by running, not by reading text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as h from "../../../../src/routeros/build/helpers/index.js";
import { parseScript } from "../../../../src/routeros/index.js";
import { catalog } from "../../../../src/routeros/simulator/catalog.js";
import { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";

const LAN = [
  h.identity('edge 1 "main"'),
  h.dnsServers({ servers: ["1.1.1.1", "9.9.9.9"], "allow-remote-requests": true }),
  h.ntpClient({ servers: ["0.pool.ntp.org", "1.pool.ntp.org"] }),
  h.bridge({ name: "bridge1" }),
  h.bridgePort({ bridge: "bridge1", interface: "ether2" }),
  h.vlan({ name: "vlan10", "vlan-id": 10, interface: "bridge1" }),
  h.interfaceList({ name: "LAN" }),
  h.interfaceListMember({ list: "LAN", interface: "bridge1" }),
  h.ipAddress({ address: "192.168.88.1/24", interface: "bridge1", comment: "lan" }),
  h.ipPool({ name: "lan", ranges: ["192.168.88.10-192.168.88.254"] }),
  h.dhcpServer({ name: "lan", interface: "bridge1", "address-pool": "lan", "lease-time": "1d" }),
  h.dhcpNetwork({ address: "192.168.88.0/24", gateway: "192.168.88.1", "dns-server": ["192.168.88.1"] }),
  h.addressList({ list: "mgmt", address: "10.0.0.0/8" }),
  h.firewallFilter({
    chain: "input",
    action: "accept",
    "connection-state": "established,related",
    comment: "managed: established",
  }),
  h.firewallNat({
    chain: "srcnat",
    action: "masquerade",
    "out-interface": "ether1",
    comment: "managed: masquerade",
  }),
];

/** Every helper with every property its type offers, so a property the router does not know fails to parse. */
const rule: Required<h.NatRuleProps> = {
  chain: "srcnat",
  action: "masquerade",
  comment: "c",
  protocol: "tcp",
  "src-address": "10.0.0.0/8",
  "dst-address": "10.0.0.1",
  "src-port": 1024,
  "dst-port": "80,443",
  "src-address-list": "a",
  "dst-address-list": "b",
  "in-interface": "ether1",
  "out-interface": "ether2",
  "in-interface-list": "!LAN",
  "out-interface-list": "WAN",
  "connection-state": "new",
  "jump-target": "j",
  log: true,
  "log-prefix": "p",
  disabled: false,
  "to-addresses": "10.0.0.2",
  "to-ports": 8080,
};
const { "to-addresses": _to, "to-ports": _ports, ...filterRule } = rule;
const EVERY_PROPERTY = [
  h.identity("x"),
  h.dnsServers({ servers: ["1.1.1.1"], "allow-remote-requests": true } satisfies Required<h.DnsProps>),
  h.ntpClient({ servers: ["ntp"], enabled: true } satisfies Required<h.NtpClientProps>),
  h.bridge({ name: "b", "vlan-filtering": true, comment: "c" } satisfies Required<h.BridgeProps>),
  h.bridgePort({
    bridge: "b",
    interface: "ether2",
    pvid: 10,
    comment: "c",
  } satisfies Required<h.BridgePortProps>),
  h.vlan({ name: "v", "vlan-id": 10, interface: "b", comment: "c" } satisfies Required<h.VlanProps>),
  h.interfaceList({ name: "L", comment: "c" } satisfies Required<h.InterfaceListProps>),
  h.interfaceListMember({
    list: "L",
    interface: "b",
    comment: "c",
  } satisfies Required<h.InterfaceListMemberProps>),
  h.ipAddress({
    address: "10.0.0.1/24",
    interface: "b",
    comment: "c",
    disabled: true,
  } satisfies Required<h.IpAddressProps>),
  h.removeIpAddress({ address: "10.0.0.1/24", interface: "b" }),
  h.ipPool({ name: "p", ranges: "10.0.0.2-10.0.0.9", comment: "c" } satisfies Required<h.IpPoolProps>),
  h.dhcpServer({
    name: "d",
    interface: "b",
    "address-pool": "p",
    "lease-time": "1d",
    disabled: false,
    comment: "c",
  } satisfies Required<h.DhcpServerProps>),
  h.dhcpNetwork({
    address: "10.0.0.0/24",
    gateway: "10.0.0.1",
    "dns-server": "10.0.0.1",
    domain: "lan",
    comment: "c",
  } satisfies Required<h.DhcpNetworkProps>),
  h.addressList({
    list: "a",
    address: "10.0.0.1",
    comment: "c",
    timeout: "1d",
  } satisfies Required<h.AddressListProps>),
  h.firewallFilter(filterRule satisfies Required<h.FirewallRuleProps>),
  h.firewallNat(rule),
  h.removeFirewallRule("filter", "c"),
];

async function exportOf(router: SimulatedRouter): Promise<string> {
  return (await router.runSource("/export")).join("\n");
}

/** Every stored value of every item, to look a value up without knowing the table layout. */
function storedValues(router: SimulatedRouter): Record<string, string>[] {
  return Object.values(router.snapshot().config).flatMap((table) => table.items.map((item) => item.values));
}

describe("RouterOS helpers", () => {
  it("each build one line that parses", () => {
    for (const line of LAN) {
      expect(line).not.toContain("\n");
      expect(() => parseScript(line), line).not.toThrow();
    }
  });

  it("write only arguments the router's console knows", () => {
    for (const line of EVERY_PROPERTY) expect(() => parseScript(line, catalog), line).not.toThrow();
  });

  it("configure a router, and running the same lines again changes nothing", async () => {
    // GIVEN a router without configuration and the LAN lines
    const router = new SimulatedRouter();
    // WHEN they run once, then again
    await router.runSource(LAN.join("\n"));
    const first = await exportOf(router);
    await router.runSource(LAN.join("\n"));
    // THEN the second run does not fail (a plain `add` would) and leaves the same configuration
    expect(await exportOf(router)).toBe(first);
    expect(first).toContain("add address=192.168.88.1/24 comment=lan interface=bridge1");
    expect(first).toContain('set name="edge 1 \\"main\\""');
    expect(first.match(/managed: established/g)).toHaveLength(1);
  });

  it("update an existing item in place instead of adding a second one", async () => {
    // GIVEN two managed filter rules
    const router = new SimulatedRouter();
    const rule = (port: number) =>
      h.firewallFilter({
        chain: "input",
        action: "accept",
        protocol: "tcp",
        "dst-port": port,
        comment: "managed: ssh",
      });
    const other = h.firewallFilter({ chain: "input", action: "drop", comment: "managed: drop rest" });
    await router.runSource([rule(22), other].join("\n"));
    // WHEN the first rule changes
    await router.runSource(rule(2222));
    // THEN it is updated where it stands: still first, still one
    const rules = (await exportOf(router)).split("\n").filter((line) => line.includes("managed: "));
    expect(rules).toHaveLength(2);
    expect(rules[0]).toContain("dst-port=2222");
    expect(rules[1]).toContain("managed: drop rest");
  });

  it("remove what they added, for destroy scripts", async () => {
    const router = new SimulatedRouter();
    const address = { address: "10.9.9.1/24", interface: "ether3" };
    await router.runSource(
      [h.ipAddress(address), h.firewallNat({ chain: "srcnat", action: "masquerade", comment: "m" })].join(
        "\n",
      ),
    );
    await router.runSource([h.removeIpAddress(address), h.removeFirewallRule("nat", "m")].join("\n"));
    // removing again finds nothing and does not fail
    await router.runSource([h.removeIpAddress(address), h.removeFirewallRule("nat", "m")].join("\n"));
    expect(await exportOf(router)).not.toMatch(/10\.9\.9\.1|comment=m/);
  });

  it("deliver any comment text unchanged, quotes, $, backslashes and newlines included", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 40, unit: "binary" }), async (comment) => {
        // GIVEN a rule whose comment is arbitrary text
        const router = new SimulatedRouter();
        // WHEN its line runs twice
        const line = h.firewallFilter({ chain: "forward", action: "accept", comment });
        await router.runSource(line);
        await router.runSource(line);
        // THEN exactly one item holds the comment as given
        expect(storedValues(router).filter((values) => values.comment === comment)).toHaveLength(1);
      }),
      { numRuns: 60 },
    );
  });
});
