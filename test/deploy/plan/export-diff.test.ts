import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffExports, parseExport, words } from "../../../src/deploy/plan/export-diff.js";

const before = `# RouterOS 7.24 (simulated) export
/interface vlan
add interface=br-core name=vlan10 vlan-id=10
add interface=br-core name=vlan20 vlan-id=20
/ip dns
set servers=1.1.1.1
/ip firewall filter
add action=accept chain=input protocol=icmp
add action=drop chain=input`;

describe("diffExports", () => {
  it("groups added, removed and changed lines by menu", () => {
    const after = `/interface vlan
add interface=br-core name=vlan10 vlan-id=11
add interface=br-core name=vlan30 vlan-id=30
/ip dns
set servers=1.1.1.1,9.9.9.9
/ip firewall filter
add action=accept chain=input protocol=icmp
add action=drop chain=input
add action=drop chain=forward`;
    expect(diffExports(before, after)).toEqual([
      {
        menu: "/interface vlan",
        added: ["add interface=br-core name=vlan30 vlan-id=30"],
        removed: ["add interface=br-core name=vlan20 vlan-id=20"],
        changed: [
          {
            before: "add interface=br-core name=vlan10 vlan-id=10",
            after: "add interface=br-core name=vlan10 vlan-id=11",
          },
        ],
        reordered: false,
      },
      {
        menu: "/ip dns",
        added: [],
        removed: [],
        changed: [{ before: "set servers=1.1.1.1", after: "set servers=1.1.1.1,9.9.9.9" }],
        reordered: false,
      },
      {
        menu: "/ip firewall filter",
        added: ["add action=drop chain=forward"],
        removed: [],
        changed: [],
        reordered: false,
      },
    ]);
  });

  it("sees a moved firewall rule as a change, and property order or comments as none", () => {
    const moved = before.replace(
      "add action=accept chain=input protocol=icmp\nadd action=drop chain=input",
      "add action=drop chain=input\nadd action=accept chain=input protocol=icmp",
    );
    expect(diffExports(before, moved)).toMatchObject([{ menu: "/ip firewall filter", reordered: true }]);
    const reworded = `# another header\n${before.replace("interface=br-core name=vlan10 vlan-id=10", "vlan-id=10 name=vlan10 interface=br-core")}`;
    expect(diffExports(before, reworded)).toEqual([]);
  });

  it("joins RouterOS's wrapped lines and keeps quoted spaces in one word", () => {
    const wrapped = '/ip address\nadd address=10.0.0.1/24 \\\n    comment="office LAN" interface=ether2';
    expect(parseExport(wrapped).get("/ip address")).toEqual([
      'add address=10.0.0.1/24 comment="office LAN" interface=ether2',
    ]);
    // Runs of spaces between words are one separator; inside a quoted value they are the value's.
    expect(
      parseExport('/ip  address\nadd   address=10.0.0.1/24  comment="two  spaces "').get("/ip address"),
    ).toEqual(['add address=10.0.0.1/24 comment="two  spaces "']);
    expect(words('set [ find default-name=ether1 ] comment="a \\" b"')).toEqual([
      "set",
      "[ find default-name=ether1 ]",
      'comment="a \\" b"',
    ]);
  });

  it("property: a diff against itself is empty, and swapping the sides swaps added and removed", () => {
    const line = fc
      .tuple(
        fc.constantFrom("add", "set"),
        fc.array(fc.stringMatching(/^[a-z]{1,6}=[a-z0-9.,]{1,8}$/), { maxLength: 4 }),
      )
      .map(([verb, props]) => [verb, ...props].join(" "));
    const exportText = fc
      .array(
        fc.tuple(
          fc.constantFrom("/ip address", "/ip route", "/interface vlan"),
          fc.array(line, { maxLength: 5 }),
        ),
      )
      .map((menus) => menus.map(([menu, lines]) => [menu, ...lines].join("\n")).join("\n"));
    fc.assert(
      fc.property(exportText, exportText, (a, b) => {
        expect(diffExports(a, a)).toEqual([]);
        const forward = diffExports(a, b);
        const backward = diffExports(b, a);
        const count = (diffs: typeof forward, side: "added" | "removed") =>
          diffs.reduce((sum, diff) => sum + diff[side].length, 0);
        expect(count(forward, "added")).toBe(count(backward, "removed"));
        expect(count(forward, "removed")).toBe(count(backward, "added"));
      }),
    );
  });
});
