/**
 * The model catalog and factory defaults: each board's ports, radios, serial port, switch chip and
 * RouterBOARD facts as RouterOS shows them, and the default configuration (defconf) a new router of that
 * model starts from, as its `/export` lists it.
 */
import { describe, expect, it } from "vitest";
import { routerModels } from "../../../src/routeros/simulator/models/index.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { fail, fixedNow, freshRouter, run } from "./helpers.js";

const names = async (router: SimulatedRouter, menu: string) =>
  (await run(router, `:foreach i in=[/${menu} find] do={ :put [/${menu} get $i name] }`)).split("\n");

const range = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

describe("the model catalog", () => {
  it.each([
    ["CHR", [...range("ether", 5)], [], [], []],
    ["hEX", [...range("ether", 5)], [], [], []],
    ["hAP ac2", [...range("ether", 5)], [], ["wlan1", "wlan2"], []],
    ["hAP ax2", [...range("ether", 5)], ["wifi1", "wifi2"], [], []],
    ["hAP ax3", [...range("ether", 5)], ["wifi1", "wifi2"], [], []],
    ["RB5009UG+S+IN", [...range("ether", 8), "sfp-sfpplus1"], [], [], ["serial0"]],
    ["CCR2004-16G-2S+", [...range("ether", 16), ...range("sfp-sfpplus", 2)], [], [], ["serial0"]],
    ["CRS326-24G-2S+", [...range("ether", 24), ...range("sfp-sfpplus", 2)], [], [], ["serial0"]],
  ])(
    "%s has its ports, radios and serial port as RouterOS names them",
    async (model, ethernet, wifi, wireless, serial) => {
      const router = freshRouter("lab", { model, defaults: false });
      expect(await names(router, "interface ethernet")).toEqual(ethernet);
      expect(await run(router, ":put [:len [/interface wifi find]]")).toBe(String(wifi.length));
      if (wifi.length > 0) expect(await names(router, "interface wifi")).toEqual(wifi);
      expect(await run(router, ":put [:len [/interface wireless find]]")).toBe(String(wireless.length));
      if (wireless.length > 0) expect(await names(router, "interface wireless")).toEqual(wireless);
      expect(await run(router, ":put [:len [/port find]]")).toBe(String(serial.length));
      if (serial.length > 0) expect(await names(router, "port")).toEqual(serial);
    },
  );

  it.each([
    ["hEX", "RB750Gr3", "hEX", "MT7621", "mmips"],
    ["hAP ax3", "C53UiG+5HPaxD2HPaxD", "hAP ax^3", "IPQ-PPE", "arm64"],
    ["RB5009", "RB5009UG+S+", "RB5009UG+S+", "88E6393X", "arm64"],
    ["CRS326", "CRS326-24G-2S+", "CRS326-24G-2S+", "98DX3236", "arm"],
  ])(
    "%s reports its RouterBOARD, switch chip and architecture",
    async (model, code, board, chip, architecture) => {
      const router = freshRouter("lab", { model });
      expect(await run(router, ":put [/system routerboard get model]")).toBe(code);
      expect(await run(router, ":put [/system routerboard get board-name]")).toBe(board);
      expect(await run(router, ":put [/system routerboard get serial-number]")).toMatch(/^[0-9A-Z]{11}$/);
      expect(await run(router, ":put [/interface ethernet switch get switch1 type]")).toBe(chip);
      expect(await run(router, ":put [/system resource get board-name]")).toBe(board);
      expect(await run(router, ":put [/system resource get architecture-name]")).toBe(architecture);
    },
  );

  it("gives each router of a model its own serial number and MACs, the same ones every time", async () => {
    const serial = (seedText: string) =>
      run(new SimulatedRouter({ model: "hEX", seedText }), ":put [/system routerboard get serial-number]");
    expect(await serial("a")).toBe(await serial("a"));
    expect(await serial("a")).not.toBe(await serial("b"));
  });

  it("keeps the default a five-port CHR without a RouterBOARD or a switch chip, as the router always was", async () => {
    const router = freshRouter();
    expect(router.model.name).toBe("CHR");
    expect(await names(router, "interface ethernet")).toEqual(range("ether", 5));
    expect(await run(router, "/export")).toBe("# RouterOS 7.24 (simulated) export");
    expect(await fail(router, "/system routerboard print")).toMatch(/^bad command name routerboard/);
    expect(await fail(router, "/interface ethernet switch print")).toMatch(/^bad command name switch/);
    expect(await run(router, ":put [/system resource get board-name]")).toBe("CHR");
  });

  it("runs a 24-port switch's configuration on that model, and refuses its ports on the small one", async () => {
    const script =
      "/interface bridge add name=trunk\n/interface bridge port add bridge=trunk interface=ether24";
    await run(freshRouter("lab", { model: "CRS326-24G-2S+", defaults: false }), script);
    expect(await fail(freshRouter(), script)).toMatch(/^input does not match any value of interface/);
  });

  it("names the known models when asked for one it does not have", () => {
    expect(() => new SimulatedRouter({ model: "RB951G-2HnD" })).toThrow(
      'unknown router model "RB951G-2HnD": known models are CHR, hEX, hAP ac2, hAP ax2, hAP ax3, RB5009, CCR2004-16G-2S+, CRS326-24G-2S+',
    );
  });

  it("finds a model by its product code or box name, whatever the case", () => {
    expect(new SimulatedRouter({ model: "rb750gr3" }).model.name).toBe("hEX");
    expect(new SimulatedRouter({ model: "C52iG-5HaxD2HaxD" }).model.name).toBe("hAP ax2");
    expect(new SimulatedRouter({ model: "hap ax3" }).model.name).toBe("hAP ax3");
  });
});

/** The defconf of RouterOS 7's home and office routers, as a factory-fresh router's `/export` lists it. */
function routerDefconf(lanPorts: readonly string[], adminMac: string): string[] {
  return [
    `/interface bridge\nadd admin-mac=${adminMac} auto-mac=no comment=defconf name=bridge`,
    "/interface list\nadd comment=defconf name=WAN\nadd comment=defconf name=LAN",
    "/ip pool\nadd name=default-dhcp ranges=192.168.88.10-192.168.88.254",
    "/ip dhcp-server\nadd address-pool=default-dhcp interface=bridge lease-time=10m name=defconf",
    `/interface bridge port\n${lanPorts.map((port) => `add bridge=bridge comment=defconf interface=${port}`).join("\n")}\n/`,
    "/interface list member\nadd comment=defconf interface=bridge list=LAN\nadd comment=defconf interface=ether1 list=WAN",
    "/ip address\nadd address=192.168.88.1/24 comment=defconf interface=bridge network=192.168.88.0",
    "/ip dhcp-server network\nadd address=192.168.88.0/24 comment=defconf dns-server=192.168.88.1 gateway=192.168.88.1",
    "/ip dns\nset allow-remote-requests=yes",
    "/ip dns static\nadd address=192.168.88.1 comment=defconf name=router.lan",
    [
      "/ip firewall filter",
      'add action=accept chain=input comment="defconf: accept established,related,untracked" connection-state=established,related,untracked',
      'add action=drop chain=input comment="defconf: drop invalid" connection-state=invalid',
      'add action=accept chain=input comment="defconf: accept ICMP" protocol=icmp',
      'add action=accept chain=input comment="defconf: accept to local loopback (for CAPsMAN)" dst-address=127.0.0.1',
      'add action=drop chain=input comment="defconf: drop all not coming from LAN" in-interface-list=!LAN',
      'add action=accept chain=forward comment="defconf: accept in ipsec policy" ipsec-policy=in,ipsec',
      'add action=accept chain=forward comment="defconf: accept out ipsec policy" ipsec-policy=out,ipsec',
      'add action=fasttrack-connection chain=forward comment="defconf: fasttrack" connection-state=established,related',
      'add action=accept chain=forward comment="defconf: accept established,related, untracked" connection-state=established,related,untracked',
      'add action=drop chain=forward comment="defconf: drop invalid" connection-state=invalid',
      'add action=drop chain=forward comment="defconf: drop all from WAN not DSTNATed" connection-nat-state=!dstnat connection-state=new in-interface-list=WAN',
    ].join("\n"),
    '/ip firewall nat\nadd action=masquerade chain=srcnat comment="defconf: masquerade" ipsec-policy=out,none out-interface-list=WAN',
    "/ip dhcp-client\nadd comment=defconf interface=ether1",
    "/ip neighbor discovery-settings\nset discover-interface-list=LAN",
    '/ipv6 firewall address-list\nadd address=::/128 comment="defconf: unspecified address" list=bad_ipv6',
    'add action=drop chain=forward comment="defconf: rfc4890 drop hop-limit=1" hop-limit=equal:1 protocol=icmpv6',
    'add action=drop chain=forward comment="defconf: drop everything else not coming in from LAN" in-interface-list=!LAN',
    "/tool mac-server\nset allowed-interface-list=LAN\n/tool mac-server mac-winbox\nset allowed-interface-list=LAN",
  ];
}

const macOf = (router: SimulatedRouter, port: string) =>
  run(router, `:put [/interface get [find default-name=${port}] mac-address]`);

describe("factory defaults", () => {
  it.each([
    ["hEX", range("ether", 5).slice(1)],
    ["hAP ac2", [...range("ether", 5).slice(1), "wlan1", "wlan2"]],
    ["hAP ax2", [...range("ether", 5).slice(1), "wifi1", "wifi2"]],
    ["hAP ax3", [...range("ether", 5).slice(1), "wifi1", "wifi2"]],
    ["RB5009", [...range("ether", 8).slice(1), "sfp-sfpplus1"]],
  ])(
    "%s starts from the router defconf: ether1 WAN, the rest bridged, DHCP, DNS, firewall, NAT",
    async (model, lan) => {
      const router = freshRouter("lab", { model });
      const exported = await run(router, "/export");
      for (const part of routerDefconf(lan, await macOf(router, "ether2"))) expect(exported).toContain(part);
      expect(exported.match(/^add address=.* list=bad_ipv6$/gm)).toHaveLength(9);
      expect(exported.split("/ipv6 firewall filter\n")[1]?.split("\n/")[0]?.split("\n")).toHaveLength(22);
    },
  );

  it("CRS326 starts as a switch: every port on the bridge with 192.168.88.1/24, no firewall and no DHCP", async () => {
    const router = freshRouter("lab", { model: "CRS326-24G-2S+" });
    const ports = [...range("ether", 24), ...range("sfp-sfpplus", 2)];
    expect((await run(router, "/export")).split("\n")).toEqual([
      "# RouterOS 7.24 (simulated) export",
      "/interface bridge",
      `add admin-mac=${await macOf(router, "ether1")} auto-mac=no comment=defconf name=bridge`,
      "/interface bridge port",
      ...ports.map((port) => `add bridge=bridge comment=defconf interface=${port}`),
      "/ip address",
      "add address=192.168.88.1/24 comment=defconf interface=bridge network=192.168.88.0",
    ]);
  });

  it("CCR2004 starts with 192.168.88.1/24 on ether1 only, and CHR with nothing", async () => {
    expect(await run(freshRouter("lab", { model: "CCR2004" }), "/export")).toBe(
      [
        "# RouterOS 7.24 (simulated) export",
        "/ip address",
        "add address=192.168.88.1/24 comment=defconf interface=ether1 network=192.168.88.0",
      ].join("\n"),
    );
    expect(await run(freshRouter("lab", { model: "CHR" }), "/export")).toBe(
      "# RouterOS 7.24 (simulated) export",
    );
  });

  it("gives the defconf bridge the MAC of its first port, as defconf's admin-mac does", async () => {
    const router = freshRouter("lab", { model: "hEX" });
    expect(await run(router, ":put [/interface bridge get bridge mac-address]")).toBe(
      await macOf(router, "ether2"),
    );
  });

  it.each(routerModels.map((model) => [model.name]))(
    "%s: reset-configuration no-defaults=yes leaves none of defconf, and a reset without it brings it back",
    async (model) => {
      const router = freshRouter("lab", { model });
      const factory = await run(router, "/export");
      const bare = await run(freshRouter("lab", { model, defaults: false }), "/export");
      await run(router, "/system reset-configuration no-defaults=yes skip-backup=yes");
      const reset = await run(router, "/export");
      expect(reset).toBe(bare);
      expect(reset).not.toContain("defconf");
      expect(reset).toBe("# RouterOS 7.24 (simulated) export");
      await run(router, "/system reset-configuration skip-backup=yes");
      expect(await run(router, "/export")).toBe(factory);
    },
  );

  it.each(routerModels.map((model) => [model.name]))(
    "%s: the export of a factory router replays on a router reset without defaults, to the same export",
    async (model) => {
      const factory = await run(freshRouter("one", { model }), "/export");
      const replica = freshRouter("one", { model, defaults: false });
      await run(replica, factory);
      expect(await run(replica, "/export")).toBe(factory);
    },
  );

  it("keeps the users on a reset with defaults when asked, and applies the defaults around them", async () => {
    const router = freshRouter("lab", { model: "hEX" });
    await run(router, "/user add name=ops group=read\n/ip firewall filter remove [find]");
    await run(router, "/system reset-configuration keep-users=yes");
    expect(await run(router, ":put [:len [/user find name=ops]]")).toBe("1");
    expect(await run(router, ':put [:len [/ip firewall filter find where comment~"^defconf"]]')).toBe("11");
  });
});

describe("the model in the router's snapshot", () => {
  it("comes back with the snapshot, whatever model the restoring router was made as", async () => {
    const hex = new SimulatedRouter({ model: "hEX", seedText: "s", now: fixedNow });
    await run(hex, "/interface ethernet set ether5 comment=uplink");
    const snapshot = JSON.parse(JSON.stringify(hex.snapshot()));
    expect(snapshot.model).toBe("hEX");
    const restored = new SimulatedRouter({ seedText: "s", now: fixedNow });
    restored.restore(snapshot);
    expect(restored.model.name).toBe("hEX");
    expect(await run(restored, ":put [/system routerboard get model]")).toBe("RB750Gr3");
    expect(await run(restored, "/export")).toBe(await run(hex, "/export"));
    // A later reset gives the restored model's defaults, not those of the model the router was made as.
    await run(restored, "/system reset-configuration");
    expect(await run(restored, "/export")).toContain("add bridge=bridge comment=defconf interface=ether5");
  });

  it("loads a snapshot taken before routers had models as the default model", () => {
    const snapshot = freshRouter().snapshot();
    const { model: _model, ...older } = snapshot;
    const restored = new SimulatedRouter({ model: "CRS326" });
    restored.restore(older);
    expect(restored.model.name).toBe("CHR");
  });

  it("refuses a snapshot of a model it does not know, naming the field and the known models", () => {
    const snapshot = { ...freshRouter().snapshot(), model: "RB951" };
    expect(() => freshRouter().restore(snapshot)).toThrow(
      /model[\s\S]*must be one of the known router models \(CHR, hEX/,
    );
  });
});
