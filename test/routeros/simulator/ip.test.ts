import { describe, expect, it } from "vitest";
import { fail, freshRouter, run } from "./helpers.js";

describe("/ip address", () => {
  it("fills the network and refuses a duplicate address", async () => {
    const router = freshRouter();
    await run(router, "/ip address add address=192.168.88.1/24 interface=ether2");
    expect(await run(router, ":put [/ip address get [find] network]")).toBe("192.168.88.0");
    expect(await fail(router, "/ip address add address=192.168.88.1/24 interface=ether2")).toBe(
      "failure: already have such address (line 1 column 1)",
    );
    await run(router, "/ip address set [find] address=10.0.0.1/8");
    expect(await run(router, ":put [/ip address get [find] network]")).toBe("10.0.0.0");
  });

  it("rejects bad addresses and missing interfaces", async () => {
    const router = freshRouter();
    expect(await fail(router, "/ip address add address=300.1.1.1/24 interface=ether1")).toMatch(
      /^invalid value for argument address/,
    );
    expect(await fail(router, "/ip address add address=10.0.0.1/24")).toMatch(
      /^missing value\(s\) of argument\(s\) interface/,
    );
  });
});

describe("/ip arp and /ip route dynamic entries", () => {
  it("shows the same neighbours for the same configuration, and none once the address is gone", async () => {
    const one = freshRouter("a");
    const two = freshRouter("a");
    for (const router of [one, two])
      await run(router, "/ip address add address=10.1.0.1/24 interface=ether2");
    const arp = await run(one, "/ip arp print");
    expect(await run(two, "/ip arp print")).toBe(arp);
    expect(Number(await run(one, "/ip arp print count-only where dynamic"))).toBeGreaterThan(0);
    for (const record of (
      await one.execute({
        menu: ["ip", "arp"],
        verb: "print",
        positional: [],
        named: new Map(),
        line: 1,
        column: 1,
      })
    ).records ?? []) {
      expect(record.address).toMatch(/^10\.1\.0\.\d+$/);
      expect(record.interface).toBe("ether2");
    }
    await run(one, "/ip address disable [find]");
    expect(await run(one, "/ip arp print count-only")).toBe("0");
  });

  it("keeps static ARP entries and validates them", async () => {
    const router = freshRouter();
    await run(router, "/ip arp add address=10.9.9.9 mac-address=aa:bb:cc:dd:ee:ff interface=ether3");
    expect(await run(router, ":put [/ip arp get [find] mac-address]")).toBe("AA:BB:CC:DD:EE:FF");
    expect(await fail(router, "/ip arp add address=10.9.9.8 mac-address=zz interface=ether3")).toMatch(
      /^invalid value for argument mac-address/,
    );
  });

  it("adds one connected route per address next to static routes", async () => {
    const router = freshRouter();
    await run(
      router,
      "/ip address add address=203.0.113.2/30 interface=ether1\n/ip route add gateway=203.0.113.1",
    );
    const routes = await run(router, "/ip route print");
    expect(routes).toContain("0 DAc 203.0.113.0/30  ether1              0");
    expect(routes).toContain("1  As 0.0.0.0/0       203.0.113.1         1");
    expect(await fail(router, "/ip route add gateway=nowhere")).toMatch(
      /^invalid value for argument gateway/,
    );
    expect(await run(router, "/ip route export")).toBe(
      "# RouterOS 7.24 (simulated) export\n/ip route\nadd disabled=no distance=1 dst-address=0.0.0.0/0 gateway=203.0.113.1 routing-table=main scope=30 target-scope=10",
    );
  });
});

describe("/ip dns, /ip pool, /ip service", () => {
  it("sets DNS servers and static entries", async () => {
    const router = freshRouter();
    await run(router, "/ip dns set servers=1.1.1.1,9.9.9.9 allow-remote-requests=yes");
    expect(await run(router, "/ip dns print")).toContain("servers: 1.1.1.1,9.9.9.9");
    expect(await fail(router, "/ip dns set servers=1.1.1")).toMatch(/^invalid value for argument servers/);
    await run(router, "/ip dns static add name=router.lan address=192.168.88.1 ttl=00:05:00");
    expect(await run(router, ":put [/ip dns static get [find] ttl]")).toBe("5m");
    expect(await fail(router, "/ip dns static add address=192.168.88.2")).toMatch(
      /^missing value\(s\) of argument\(s\) name/,
    );
  });

  it("takes the DNS cache size with a unit or as KiB, and prints and exports it as 7.x does", async () => {
    const router = freshRouter();
    expect(await run(router, "/ip dns print")).toContain("cache-size: 2048KiB");
    await run(router, "/ip dns set cache-size=4096KiB");
    expect(await run(router, "/export")).toContain("/ip dns\nset cache-size=4096KiB");
    await run(router, "/ip dns set cache-size=8192");
    expect(await run(router, ":put [/ip dns get cache-size]")).toBe("8192KiB");
    await run(router, "/ip dns set cache-size=1GiB");
    expect(await run(router, ":put [/ip dns get cache-size]")).toBe("1048576KiB");
    expect(await fail(router, "/ip dns set cache-size=32KiB")).toMatch(
      /^value of cache-size out of range \(64KiB\.\.4294967295KiB\)/,
    );
    expect(await fail(router, "/ip dns set cache-size=4kb")).toMatch(
      /^invalid value for argument cache-size/,
    );
  });

  it("names pools and refuses a duplicate name", async () => {
    const router = freshRouter();
    await run(router, "/ip pool add ranges=10.0.0.10-10.0.0.20");
    expect(await run(router, ":put [/ip pool get [find] name]")).toBe("pool1");
    expect(await fail(router, "/ip pool add name=pool1 ranges=10.0.1.10-10.0.1.20")).toMatch(
      /^failure: pool with such name already exists/,
    );
    expect(await fail(router, "/ip pool add name=x ranges=10.0.1.20-10.0.1.10")).toMatch(
      /^invalid value for argument ranges/,
    );
  });

  it("has the RouterOS services, which can be set but not added", async () => {
    const router = freshRouter();
    expect(await run(router, ":put [/ip service get www-ssl disabled]")).toBe("true");
    await run(
      router,
      "/ip service set telnet disabled=yes\n/ip service set ssh port=2222 address=10.0.0.0/8",
    );
    expect(await run(router, "/ip service export")).toBe(
      [
        "# RouterOS 7.24 (simulated) export",
        "/ip service",
        "set telnet disabled=yes",
        "set ssh address=10.0.0.0/8 port=2222",
      ].join("\n"),
    );
    await run(router, "/ip service disable ftp,www,api");
    expect(await run(router, "/ip service print count-only where disabled")).toBe("5");
    expect(await fail(router, "/ip service set ssh port=70000")).toMatch(
      /^value of port out of range \(1\.\.65535\)/,
    );
  });
});

describe("/ip dns static and :resolve", () => {
  it("keeps AAAA records and answers :resolve from the static entries", async () => {
    const router = freshRouter();
    await run(
      router,
      [
        "/ip dns static add name=nas.home.arpa address=192.168.88.20",
        "/ip dns static add name=nas.home.arpa type=AAAA address=fd00:88::20",
      ].join("\n"),
    );
    expect(await run(router, ":put [:resolve nas.home.arpa]")).toBe("192.168.88.20");
    expect(await run(router, '/ip dns static export where type="AAAA"')).toContain("address=fd00:88::20");
    expect(await fail(router, ":resolve printer.home.arpa")).toMatch(/^failure: dns name does not exist/);
  });
});

describe("!= in find", () => {
  it("selects the items whose property differs, beside equal conditions and where", async () => {
    const router = freshRouter();
    await run(
      router,
      [
        "/ip address add address=10.10.0.1/24 interface=ether2 comment=lan",
        "/ip address add address=10.20.0.1/24 interface=ether3 comment=lan",
        "/ip address add address=203.0.113.2/30 interface=ether1 comment=wan",
      ].join("\n"),
    );
    expect(await run(router, ":put [:len [/ip address find comment=lan interface!=ether2]]")).toBe("1");
    expect(await run(router, ':put [:len [/ip address find interface!="ether1" where comment=lan]]')).toBe(
      "2",
    );
    await run(router, "/ip address set [find comment!=wan] disabled=yes");
    expect(await run(router, ":put [:len [/ip address find where disabled]]")).toBe("2");
  });
});
