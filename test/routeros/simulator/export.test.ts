import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firewallWithLists, smallOffice, vlanTrunk } from "./corpus.js";
import { freshRouter, run } from "./helpers.js";

const getComment = {
  menu: ["ip", "pool"],
  verb: "get",
  positional: [],
  named: new Map(),
  line: 1,
  column: 1,
};

/** Export, replay on a reset router, export again: the texts must match. */
async function roundTrip(script: string): Promise<{ first: string; second: string }> {
  const original = freshRouter("one");
  await run(original, script);
  const first = await run(original, "/export");
  const replica = freshRouter("two");
  await run(replica, first);
  return { first, second: await run(replica, "/export") };
}

describe("export", () => {
  it.each([
    ["a small office router", smallOffice],
    ["a VLAN trunk with DHCP per VLAN", vlanTrunk],
    ["a firewall with address lists", firewallWithLists],
  ])("round-trips %s", async (_name, script) => {
    const { first, second } = await roundTrip(script);
    expect(second).toBe(first);
    expect(first.split("\n").length).toBeGreaterThan(5);
  });

  it("writes the small office as RouterOS would, non-default values only", async () => {
    const { first } = await roundTrip(smallOffice);
    expect(first).toContain(
      '/interface ethernet\nset [ find default-name=ether1 ] comment="ISP uplink" name=wan',
    );
    expect(first).toContain(
      "/ip dhcp-server\nadd address-pool=office-pool interface=bridge-lan lease-time=8h name=office",
    );
    expect(first).toContain(
      'add action=drop chain=input comment="drop all not coming from LAN" in-interface-list=!LAN',
    );
    // RouterOS writes a route's defaults and a rule's action always, other defaults never.
    expect(first).toContain(
      '/ip route\nadd comment="default via ISP" disabled=no distance=1 dst-address=0.0.0.0/0 gateway=',
    );
    expect(first.replace(/\/ip route\n[^/]*/, "")).not.toContain("disabled=no");
    expect(first).not.toMatch(/^add chain=/m);
    expect(first).not.toMatch(/\/ip arp|\/user/);
  });

  it("keeps the firewall order through the round trip", async () => {
    const { first } = await roundTrip(firewallWithLists);
    const filter = first.split("/ip firewall filter\n")[1]?.split("\n/")[0]?.split("\n") ?? [];
    expect(filter[0]).toBe(
      "add action=drop chain=forward connection-nat-state=!dstnat dst-address-list=!trusted",
    );
    expect(filter.indexOf("add action=drop chain=icmp-check")).toBe(
      filter.indexOf("add action=accept chain=icmp-check limit=5,10:packet") - 1,
    );
    expect(filter.some((l) => l.includes("disabled=yes reject-with=icmp-port-unreachable"))).toBe(true);
  });

  it("exports only the menu it is called in", async () => {
    const router = freshRouter();
    await run(router, smallOffice);
    const dns = await run(router, "/ip dns export");
    expect(dns.split("\n")).toEqual([
      "# RouterOS 7.24 (simulated) export",
      "/ip dns",
      "set allow-remote-requests=yes servers=1.1.1.1,8.8.8.8",
      "/ip dns static",
      "add address=192.168.10.1 name=gw.office.lan",
    ]);
  });

  it("round-trips any comment text through quoting", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 4 }),
        async (comments) => {
          const router = freshRouter();
          for (const [i, comment] of comments.entries()) {
            await router.execute({
              menu: ["ip", "pool"],
              verb: "add",
              positional: [],
              named: new Map([
                ["name", `p${i}`],
                ["ranges", `10.0.${i}.1-10.0.${i}.2`],
                ["comment", comment],
              ]),
              line: 1,
              column: 1,
            });
          }
          const first = await run(router, "/export");
          const replica = freshRouter();
          await run(replica, first);
          expect(await run(replica, "/export")).toBe(first);
          for (const [i, comment] of comments.entries()) {
            expect(await replica.execute({ ...getComment, positional: [`p${i}`, "comment"] })).toEqual({
              value: comment,
            });
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
