/**
 * One row per simulated menu that holds properties, for menu-crud.test.ts. Expected records use the
 * service's keys and the API's values (`mac_address`, booleans as `true`/`false`); errors are RouterOS's
 * texts without the script position.
 */
import type { RouterRecord } from "../../../src/contract/sync.js";

/** Arguments the router refuses, and its exact text. */
export interface Refusal {
  readonly args: string;
  readonly error: string;
}

/** A menu items are added to. `add` is a minimal valid item; `setup` adds what it references. */
export interface ListRow {
  readonly setup?: string;
  readonly add: string;
  /** Part of what print shows for the new item. */
  readonly added: RouterRecord;
  /** One property changed; it leaves `add`'s clash keys alone unless `duplicate` says otherwise. */
  readonly set: string;
  readonly changed: RouterRecord;
  /** An `add` with one bad value. */
  readonly invalid: Refusal;
  /** An `add` that clashes with the item after `set`, where the menu refuses duplicates. */
  readonly duplicate?: Refusal;
}

/** A list menu of built-in items only (ports, services): set, never add. */
export interface FixedRow {
  /** The model that has the items (a switch chip); the default model otherwise. */
  readonly model?: string;
  readonly item: string;
  readonly set: string;
  readonly changed: RouterRecord;
  /** A `set` with one bad value. */
  readonly invalid: Refusal;
  readonly removeError: string;
}

/** A menu of one item. */
export interface SingletonRow {
  /** A board that has the menu (`/system routerboard settings` on a RouterBOARD); the default CHR otherwise. */
  readonly model?: string;
  readonly set: string;
  readonly changed: RouterRecord;
  /** A `set` with one bad value; absent where the menu takes any value (a name). */
  readonly invalid?: Refusal;
}

const bridge = "/interface bridge add name=br";

export const listRows: Readonly<Record<string, ListRow>> = {
  "interface bridge": {
    add: "name=br1",
    added: { name: "br1", type: "bridge", vlan_filtering: "false", protocol_mode: "rstp", running: "true" },
    set: "vlan-filtering=yes",
    changed: { vlan_filtering: "true" },
    invalid: {
      args: "name=br2 protocol-mode=spanning",
      error: "input does not match any value of protocol-mode",
    },
    duplicate: { args: "name=br1", error: "failure: already have interface with such name" },
  },
  "interface vlan": {
    add: "name=v10 interface=ether1 vlan-id=10",
    added: { name: "v10", type: "vlan", interface: "ether1", vlan_id: "10", mtu: "1500" },
    set: "vlan-id=20",
    changed: { vlan_id: "20" },
    invalid: {
      args: "name=v11 interface=ether9 vlan-id=11",
      error: "input does not match any value of interface",
    },
    duplicate: {
      args: "name=v20 interface=ether1 vlan-id=20",
      error: "failure: vlan with such id already exists on this interface",
    },
  },
  "interface list": {
    add: "name=LAN",
    added: { name: "LAN", builtin: "no" },
    set: "include=static",
    changed: { include: "static" },
    invalid: { args: "name=WAN exclude=nope", error: "input does not match any value of exclude" },
    duplicate: { args: "name=LAN", error: "failure: already have interface list with such name" },
  },
  "ip pool": {
    add: "name=lan ranges=10.0.0.10-10.0.0.99",
    added: { name: "lan", ranges: "10.0.0.10-10.0.0.99" },
    set: "ranges=10.0.0.100-10.0.0.199,10.0.1.0/24",
    changed: { ranges: "10.0.0.100-10.0.0.199,10.0.1.0/24" },
    invalid: { args: "name=wan ranges=10.0.0.99-10.0.0.10", error: "invalid value for argument ranges" },
    duplicate: {
      args: "name=lan ranges=10.9.0.1-10.9.0.9",
      error: "failure: pool with such name already exists",
    },
  },
  "ip dhcp-server": {
    setup: "/ip pool add name=lan-pool ranges=10.0.0.10-10.0.0.99",
    add: "name=lan interface=ether2",
    added: { name: "lan", interface: "ether2", address_pool: "static-only", lease_time: "30m" },
    set: "address-pool=lan-pool",
    changed: { address_pool: "lan-pool" },
    invalid: {
      args: "name=guest interface=ether3 lease-time=soon",
      error: "invalid value for argument lease-time",
    },
    duplicate: { args: "name=lan interface=ether3", error: "failure: already have server with such name" },
  },
  "interface bridge port": {
    setup: bridge,
    add: "bridge=br interface=ether2",
    added: { bridge: "br", interface: "ether2", pvid: "1", hw: "true" },
    set: "pvid=10",
    changed: { pvid: "10" },
    invalid: { args: "bridge=ether3 interface=ether3", error: "input does not match any value of bridge" },
    duplicate: { args: "bridge=br interface=ether2", error: "failure: device already added as bridge port" },
  },
  "interface bridge vlan": {
    setup: bridge,
    add: "bridge=br vlan-ids=10 tagged=br,ether1",
    added: { bridge: "br", vlan_ids: "10", tagged: "br,ether1" },
    set: "untagged=ether2",
    changed: { untagged: "ether2" },
    invalid: { args: "bridge=br vlan-ids=10,5000", error: "value of vlan-ids out of range (1..4094)" },
  },
  "interface list member": {
    setup: "/interface list add name=LAN",
    add: "list=LAN interface=ether2",
    added: { list: "LAN", interface: "ether2" },
    set: "interface=ether3",
    changed: { interface: "ether3" },
    invalid: { args: "list=LAN interface=nope", error: "input does not match any value of interface" },
    duplicate: { args: "list=LAN interface=ether3", error: "failure: already have such entry" },
  },
  "ip address": {
    add: "address=192.168.88.1/24 interface=ether2",
    added: { address: "192.168.88.1/24", network: "192.168.88.0", interface: "ether2" },
    set: "address=10.0.0.1/8",
    changed: { address: "10.0.0.1/8", network: "10.0.0.0" },
    invalid: { args: "address=300.1.1.1/24 interface=ether2", error: "invalid value for argument address" },
    duplicate: { args: "address=10.0.0.1/8 interface=ether2", error: "failure: already have such address" },
  },
  "ip arp": {
    add: "address=10.9.9.9 mac-address=aa:bb:cc:dd:ee:ff interface=ether3",
    added: { address: "10.9.9.9", mac_address: "AA:BB:CC:DD:EE:FF", interface: "ether3", dynamic: "false" },
    set: "mac-address=02:00:00:00:00:01",
    changed: { mac_address: "02:00:00:00:00:01" },
    invalid: {
      args: "address=10.9.9.8 mac-address=zz interface=ether3",
      error: "invalid value for argument mac-address",
    },
    duplicate: { args: "address=10.9.9.9 interface=ether3", error: "failure: already have such entry" },
  },
  "ip dhcp-server lease": {
    add: "address=10.0.0.50 mac-address=02:00:00:00:00:01",
    added: { address: "10.0.0.50", mac_address: "02:00:00:00:00:01", server: "all", lease_time: "0s" },
    set: "address=10.0.0.51",
    changed: { address: "10.0.0.51" },
    invalid: {
      args: "address=10.0.0.52 mac-address=02:00:00:00:00:02 server=nope",
      error: "input does not match any value of server",
    },
    duplicate: {
      args: "address=10.0.0.53 mac-address=02:00:00:00:00:01",
      error: "failure: already have static lease for this MAC address",
    },
  },
  "ip dhcp-server network": {
    add: "address=10.0.0.1/24 gateway=10.0.0.1",
    added: { address: "10.0.0.0/24", gateway: "10.0.0.1" },
    set: "dns-server=10.0.0.1,1.1.1.1",
    changed: { dns_server: "10.0.0.1,1.1.1.1" },
    invalid: { args: "address=10.1.0.0/24 gateway=10.1.0", error: "invalid value for argument gateway" },
    duplicate: { args: "address=10.0.0.0/24", error: "failure: already have such entry" },
  },
  "ip dns static": {
    add: "name=router.lan address=192.168.88.1",
    added: { name: "router.lan", address: "192.168.88.1", type: "A", ttl: "1d" },
    set: "ttl=00:05:00",
    changed: { ttl: "5m" },
    invalid: { args: "name=printer.lan type=B", error: "input does not match any value of type" },
  },
  "ip firewall address-list": {
    add: "list=blocked address=198.51.100.0/24",
    added: { list: "blocked", address: "198.51.100.0/24", dynamic: "false" },
    set: "timeout=1d",
    changed: { timeout: "1d" },
    invalid: { args: "list=blocked address=10.0.0.0/33", error: "invalid value for argument address" },
    duplicate: { args: "list=blocked address=198.51.100.0/24", error: "failure: already have such entry" },
  },
  "ip firewall filter": {
    add: "chain=input action=drop protocol=tcp dst-port=23",
    added: { chain: "input", action: "drop", protocol: "tcp", dst_port: "23", log: "false" },
    set: "dst-port=23,2323",
    changed: { dst_port: "23,2323" },
    invalid: {
      args: "chain=input in-interface=nope",
      error: "input does not match any value of in-interface",
    },
  },
  "ip firewall mangle": {
    add: "chain=prerouting action=mark-connection new-connection-mark=web",
    added: {
      chain: "prerouting",
      action: "mark-connection",
      new_connection_mark: "web",
      passthrough: "true",
    },
    set: "passthrough=no",
    changed: { passthrough: "false" },
    invalid: {
      args: "chain=forward src-address=10.0.0.300",
      error: "invalid value for argument src-address",
    },
  },
  "ip firewall nat": {
    add: "chain=srcnat action=masquerade out-interface=ether1",
    added: { chain: "srcnat", action: "masquerade", out_interface: "ether1" },
    set: "out-interface=!ether2",
    changed: { out_interface: "!ether2" },
    invalid: {
      args: "chain=dstnat action=dst-nat to-ports=70000",
      error: "invalid value for argument to-ports",
    },
  },
  "ip route": {
    add: "dst-address=10.10.0.0/16 gateway=192.0.2.1",
    added: {
      dst_address: "10.10.0.0/16",
      gateway: "192.0.2.1",
      distance: "1",
      static: "true",
      dynamic: "false",
    },
    set: "distance=5",
    changed: { distance: "5" },
    invalid: { args: "gateway=192.0.2.1 distance=300", error: "value of distance out of range (0..255)" },
  },
  "system scheduler": {
    add: 'name=tick interval=5m on-event=":log info tick"',
    added: {
      name: "tick",
      interval: "5m",
      on_event: ":log info tick",
      start_date: "2026-11-22",
      start_time: "10:00:00",
    },
    set: "interval=01:00:00",
    // The next run follows the interval: an hour after the start, no longer five minutes.
    changed: { interval: "1h", next_run: "2026-11-22 11:00:00" },
    invalid: { args: "name=tock interval=often", error: "invalid value for argument interval" },
    duplicate: { args: "name=tick", error: "failure: already have such name" },
  },
  "system script": {
    add: 'name=hello source=":put hi"',
    added: { name: "hello", owner: "admin", source: ":put hi" },
    set: 'source=":put bye"',
    changed: { source: ":put bye" },
    invalid: { args: "name=other policy=read,root", error: "input does not match any value of policy" },
    duplicate: { args: "name=hello", error: "failure: already have such name" },
  },
  user: {
    add: "name=ops group=read password=secret",
    added: { name: "ops", group: "read" },
    set: "group=write",
    changed: { group: "write" },
    invalid: { args: "name=dev group=root", error: "input does not match any value of group" },
    duplicate: { args: "name=ops group=full", error: "failure: user with the same name already exists" },
  },
};

export const fixedRows: Readonly<Record<string, FixedRow>> = {
  interface: {
    item: "ether2",
    set: "mtu=9000",
    changed: { name: "ether2", mtu: "9000" },
    invalid: { args: "mtu=70000", error: "value of mtu out of range (0..65535)" },
    removeError: "failure: can not remove built-in item",
  },
  "interface ethernet": {
    item: "ether3",
    set: "arp=proxy-arp",
    changed: { name: "ether3", arp: "proxy-arp" },
    invalid: { args: "arp=sometimes", error: "input does not match any value of arp" },
    removeError: "bad command name remove",
  },
  "interface ethernet switch": {
    model: "CRS326-24G-2S+",
    item: "switch1",
    set: "l3-hw-offloading=yes",
    changed: { name: "switch1", type: "98DX3236", l3_hw_offloading: "true" },
    invalid: { args: "l3-hw-offloading=maybe", error: "invalid value for argument l3-hw-offloading" },
    removeError: "bad command name remove",
  },
  "ip service": {
    item: "ssh",
    set: "port=2222",
    changed: { name: "ssh", port: "2222" },
    invalid: { args: "address=10.0.0.0/40", error: "invalid value for argument address" },
    removeError: "bad command name remove",
  },
};

export const singletonRows: Readonly<Record<string, SingletonRow>> = {
  "system identity": { set: "name=core", changed: { name: "core" } },
  "system clock": {
    set: "time-zone-name=Europe/Riga date=2027-01-02",
    changed: { time_zone_name: "Europe/Riga", date: "2027-01-02", time: "10:00:00" },
    invalid: { args: "date=2027-13-40", error: "invalid value for argument date" },
  },
  "system ntp client": {
    set: "servers=pool.ntp.org,192.0.2.1",
    changed: { servers: "pool.ntp.org,192.0.2.1" },
    invalid: { args: "mode=anycast", error: "input does not match any value of mode" },
  },
  "ip dns": {
    // 7.x prints and exports the size with its unit; a bare number is KiB, MiB is 1024 of them.
    set: "cache-size=4MiB",
    changed: { cache_size: "4096KiB" },
    invalid: {
      args: "max-udp-packet-size=10",
      error: "value of max-udp-packet-size out of range (50..65507)",
    },
  },
  "system routerboard settings": {
    model: "hEX",
    set: "auto-upgrade=yes boot-delay=5s",
    changed: { auto_upgrade: "true", boot_delay: "5s" },
    invalid: { args: "boot-protocol=tftp", error: "input does not match any value of boot-protocol" },
  },
  snmp: {
    set: 'location="server room"',
    changed: { location: "server room" },
    invalid: { args: "trap-version=4", error: "value of trap-version out of range (1..3)" },
  },
};
