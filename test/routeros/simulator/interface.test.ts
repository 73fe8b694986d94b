import { describe, expect, it } from "vitest";
import { fail, freshRouter, run } from "./helpers.js";

describe("/interface and its views", () => {
  it("starts with ether1..ether5 and the loopback lo, and nothing else", async () => {
    const router = freshRouter();
    expect(await run(router, ":put [/interface print count-only]")).toBe("6\n6");
    expect(await run(router, ":put [/interface get ether1 type]")).toBe("ether");
    expect(await run(router, ":put [/interface get lo type]")).toBe("loopback");
    expect(await fail(router, "/interface remove lo")).toMatch(/^failure: can not remove built-in item/);
    expect(await run(router, "/export")).toBe("# RouterOS 7.24 (simulated) export");
  });

  it("renames follow through references, because they are stored by id", async () => {
    const router = freshRouter();
    await run(router, "/ip address add address=10.0.0.1/24 interface=ether1");
    await run(router, "/interface ethernet set [ find default-name=ether1 ] name=wan");
    expect(await run(router, ":put [/ip address get [find] interface]")).toBe("wan");
    expect(await fail(router, "/ip address add address=10.0.9.1/24 interface=ether1")).toMatch(
      /^input does not match any value of interface/,
    );
  });

  it("keeps interface names unique across types", async () => {
    const router = freshRouter();
    expect(await fail(router, "/interface bridge add name=ether2")).toMatch(
      /^failure: already have interface with such name/,
    );
    await run(router, "/interface bridge add");
    await run(router, "/interface bridge add");
    expect(await run(router, ":put [/interface bridge get bridge2 type]")).toBe("bridge");
  });

  it("bridge ports need an existing bridge, and a port joins one bridge only", async () => {
    const router = freshRouter();
    expect(await fail(router, "/interface bridge port add bridge=ether1 interface=ether2")).toMatch(
      /^input does not match any value of bridge/,
    );
    await run(router, "/interface bridge add name=br\n/interface bridge port add bridge=br interface=ether2");
    expect(await fail(router, "/interface bridge port add bridge=br interface=ether2")).toMatch(
      /^failure: device already added as bridge port/,
    );
    expect(await run(router, "/interface bridge port print")).toContain("0 ether2     br         1");
  });

  it("validates VLAN ids and refuses a second VLAN with the same id on an interface", async () => {
    const router = freshRouter();
    expect(await fail(router, "/interface vlan add interface=ether1 vlan-id=5000")).toMatch(
      /^value of vlan-id out of range \(1\.\.4095\)/,
    );
    expect(await fail(router, "/interface vlan add interface=ether1 vlan-id=ten")).toMatch(
      /^invalid value for argument vlan-id/,
    );
    await run(router, "/interface vlan add interface=ether1 vlan-id=10");
    expect(await run(router, ":put [/interface vlan get vlan1 vlan-id]")).toBe("10");
    expect(await fail(router, "/interface vlan add interface=ether1 vlan-id=10 name=other")).toMatch(
      /^failure: vlan with such id already exists on this interface/,
    );
  });

  it("lists have built-in members the export leaves out, and members are unique", async () => {
    const router = freshRouter();
    expect(await run(router, ":put [/interface list print count-only]")).toBe("4\n4");
    await run(router, "/interface list add name=LAN\n/interface list member add list=LAN interface=ether2");
    expect(await fail(router, "/interface list member add list=LAN interface=ether2")).toMatch(
      /^failure: already have such entry/,
    );
    expect(await fail(router, "/interface list member add list=LAN interface=nope")).toMatch(
      /^input does not match any value of interface/,
    );
    expect(await fail(router, "/interface list remove all")).toMatch(
      /^failure: can not remove built-in item/,
    );
    expect(await run(router, "/interface list export")).toBe(
      [
        "# RouterOS 7.24 (simulated) export",
        "/interface list",
        "add name=LAN",
        "/interface list member",
        "add interface=ether2 list=LAN",
      ].join("\n"),
    );
  });

  it("marks an item invalid when what it references is removed", async () => {
    const router = freshRouter();
    await run(router, "/interface bridge add name=br\n/ip address add address=10.0.0.1/24 interface=br");
    await run(router, "/interface bridge remove br");
    expect(await run(router, ":put [/ip address get [find] invalid]")).toBe("true");
    expect(await run(router, ":put [/ip address get [find] interface]")).toBe("*7");
  });
});
