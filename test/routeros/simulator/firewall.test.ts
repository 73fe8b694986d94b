import { describe, expect, it } from "vitest";
import { fail, freshRouter, run } from "./helpers.js";

describe("/ip firewall", () => {
  it("keeps rule order, places rules before others and moves them", async () => {
    const router = freshRouter();
    await run(
      router,
      [
        "/ip firewall filter add chain=input action=accept comment=first",
        "/ip firewall filter add chain=input action=drop comment=last",
        "/ip firewall filter add chain=input action=accept protocol=icmp place-before=1 comment=middle",
      ].join("\n"),
    );
    const comments = async () => (await run(router, ":put [/ip firewall filter find]")).trim();
    expect(await comments()).toBe("*1;*3;*2");
    await run(router, "/ip firewall filter move *2 destination=*1");
    expect(await comments()).toBe("*2;*1;*3");
    await run(router, "/ip firewall filter print\n/ip firewall filter move 0");
    expect(await comments()).toBe("*1;*3;*2");
  });

  it("prints rules in the detail form with only what was written", async () => {
    const router = freshRouter();
    await run(
      router,
      '/ip firewall filter add chain=forward action=drop connection-state=invalid comment="drop invalid"',
    );
    expect((await run(router, "/ip firewall filter print")).split("\n")).toEqual([
      "Flags: X - disabled, I - invalid; D - dynamic",
      " 0    ;;; drop invalid",
      "      chain=forward action=drop connection-state=invalid",
    ]);
  });

  it("validates actions, matchers and jumps", async () => {
    const router = freshRouter();
    expect(await fail(router, "/ip firewall filter add chain=input action=explode")).toMatch(
      /^input does not match any value of action/,
    );
    expect(await fail(router, "/ip firewall filter add chain=input connection-state=sleepy")).toMatch(
      /^input does not match any value of connection-state/,
    );
    expect(await fail(router, "/ip firewall filter add chain=input dst-port=99999")).toMatch(
      /^invalid value for argument dst-port/,
    );
    expect(await fail(router, "/ip firewall filter add chain=input action=jump")).toMatch(
      /^missing value\(s\) of argument\(s\) jump-target/,
    );
    expect(await fail(router, "/ip firewall filter add action=accept")).toMatch(
      /^missing value\(s\) of argument\(s\) chain/,
    );
    expect(
      await fail(router, "/ip firewall nat add chain=srcnat action=masquerade out-interface=!wan"),
    ).toMatch(/^input does not match any value of out-interface/);
    await run(router, "/ip firewall nat add chain=srcnat action=masquerade out-interface=!ether2");
    expect(await run(router, ":put [/ip firewall nat get [find] out-interface]")).toBe("!ether2");
  });

  it("keeps address lists unique per list", async () => {
    const router = freshRouter();
    await run(router, "/ip firewall address-list add list=blocked address=198.51.100.0/24");
    await run(router, "/ip firewall address-list add list=allowed address=198.51.100.0/24");
    await run(router, "/ip firewall address-list add list=allowed address=example.com");
    expect(await fail(router, "/ip firewall address-list add list=blocked address=198.51.100.0/24")).toMatch(
      /^failure: already have such entry/,
    );
    expect(await run(router, "/ip firewall address-list print count-only where list=allowed")).toBe("2");
  });

  it("refuses move outside ordered menus", async () => {
    const router = freshRouter();
    expect(await fail(router, "/ip address move 0 1")).toMatch(/^bad command name move/);
  });
});

describe("/ip dhcp-server", () => {
  it("needs an interface and a known pool, and names servers dhcp1, dhcp2", async () => {
    const router = freshRouter();
    expect(await fail(router, "/ip dhcp-server add address-pool=none interface=ether2")).toMatch(
      /^input does not match any value of address-pool/,
    );
    await run(router, "/ip pool add name=lan ranges=10.0.0.10-10.0.0.99");
    await run(router, "/ip dhcp-server add address-pool=lan interface=ether2");
    await run(router, "/ip dhcp-server add interface=ether3");
    expect(await run(router, ":put [/ip dhcp-server get dhcp2 address-pool]")).toBe("static-only");
    expect(await run(router, ":put [/ip dhcp-server get dhcp1 lease-time]")).toBe("30m");
  });

  it("stores networks by their network address and leases once per MAC and server", async () => {
    const router = freshRouter();
    await run(
      router,
      "/ip dhcp-server network add address=10.0.0.1/24 gateway=10.0.0.1 dns-server=10.0.0.1,1.1.1.1",
    );
    expect(await run(router, ":put [/ip dhcp-server network get [find] address]")).toBe("10.0.0.0/24");
    expect(await fail(router, "/ip dhcp-server network add address=10.0.0.0/24")).toMatch(
      /^failure: already have such entry/,
    );
    await run(router, "/ip dhcp-server lease add address=10.0.0.50 mac-address=02:00:00:00:00:01");
    expect(
      await fail(router, "/ip dhcp-server lease add address=10.0.0.51 mac-address=02:00:00:00:00:01"),
    ).toMatch(/^failure: already have static lease for this MAC address/);
    expect(
      await fail(
        router,
        "/ip dhcp-server lease add address=10.0.0.52 mac-address=02:00:00:00:00:02 server=x",
      ),
    ).toMatch(/^input does not match any value of server/);
  });
});

describe("mangle actions of RouterOS 7.24", () => {
  it("takes set-priority with new-priority, as QoS scripts mark VoIP traffic", async () => {
    const router = freshRouter();
    await run(
      router,
      '/ip firewall mangle add chain=forward action=set-priority new-priority=5 protocol=udp dst-port=5060 comment="voip"',
    );
    expect(await run(router, "/ip firewall mangle export")).toContain("action=set-priority");
    expect(await fail(router, "/ip firewall mangle add chain=forward action=set-priorty")).toMatch(
      /^input does not match any value of action/,
    );
  });
});
