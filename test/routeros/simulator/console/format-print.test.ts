import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type FlagGroup,
  formatDetail,
  formatSettings,
  formatTable,
  formatTerse,
} from "../../../../src/routeros/simulator/console/format-print.js";
import { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";

const addressFlags: FlagGroup[] = [
  [
    { letter: "X", name: "disabled" },
    { letter: "I", name: "invalid" },
  ],
  [{ letter: "D", name: "dynamic" }],
];

describe("the console's print forms", () => {
  it("tables: flags that occur, a comment line at the left edge, numbers right-aligned", () => {
    const lines = formatTable(
      addressFlags,
      ["address", "interface", "mtu"],
      [
        { flags: "", comment: "uplink", cells: ["10.0.0.1/24", "ether1", "1500"] },
        { flags: "X", cells: ["10.9.0.1/24", "ether10", "9000"] },
        { flags: "D", cells: ["100.64.0.7/32", "pppoe-out1", "65536"] },
      ],
    );
    expect(lines).toEqual([
      "Flags: X - DISABLED; D - DYNAMIC",
      "Columns: ADDRESS, INTERFACE, MTU",
      "#    ADDRESS        INTERFACE     MTU",
      ";;; uplink",
      "0    10.0.0.1/24    ether1       1500",
      "1 X  10.9.0.1/24    ether10      9000",
      "2  D 100.64.0.7/32  pppoe-out1  65536",
    ]);
  });

  it("tables without any flag have no legend and no flag column", () => {
    expect(formatTable(addressFlags, ["name"], [{ flags: "", cells: ["a"] }])).toEqual([
      "Columns: NAME",
      "# NAME",
      "0 a",
    ]);
    expect(formatTable(addressFlags, ["name"], [])).toEqual(["Columns: NAME", "# NAME"]);
  });

  it("detail: every flag in the legend, the comment after the flags, quoted text, a blank line between", () => {
    const lines = formatDetail(addressFlags, [
      {
        flags: "",
        comment: "defconf",
        properties: [
          { name: "address", value: "192.168.88.1/24" },
          { name: "note", value: 'say "hi"', quoted: true },
        ],
      },
      { flags: "X", properties: [{ name: "address", value: "10.0.0.1/8" }] },
    ]);
    expect(lines).toEqual([
      "Flags: X - disabled, I - invalid; D - dynamic",
      " 0    ;;; defconf",
      '      address=192.168.88.1/24 note="say \\"hi\\""',
      "",
      " 1 X  address=10.0.0.1/8",
    ]);
  });

  it("terse: one line per item, the comment first, values as they are", () => {
    expect(
      formatTerse(addressFlags, [
        { flags: "D", comment: "a b", properties: [{ name: "name", value: "x y", quoted: true }] },
      ]),
    ).toEqual([" 0  D comment=a b name=x y"]);
  });

  it("settings: names right-aligned before a colon", () => {
    expect(
      formatSettings([
        { name: "name", value: "MikroTik" },
        { name: "cache-size", value: "2048" },
      ]),
    ).toEqual(["        name: MikroTik", "  cache-size: 2048"]);
  });

  it("keeps every table column at one offset, whatever the cells", () => {
    const cell = fc.stringMatching(/^[a-z0-9./]{0,12}$/);
    fc.assert(
      fc.property(
        fc.array(fc.record({ flags: fc.constantFrom("", "X", "D", "XD"), cells: fc.tuple(cell, cell) }), {
          minLength: 1,
          maxLength: 15,
        }),
        (rows) => {
          const lines = formatTable(addressFlags, ["first", "second"], rows);
          const header = lines.find((line) => line.trimStart().startsWith("#")) ?? "";
          const secondAt = header.indexOf("SECOND");
          const body = lines.slice(lines.indexOf(header) + 1);
          body.forEach((line, index) => {
            const row = rows[index];
            if (!row) throw new Error("more lines than rows");
            expect(line.startsWith(String(index).padStart(String(rows.length - 1).length))).toBe(true);
            if (row.cells[1] !== "" && !/^\d+$/.test(row.cells[1])) {
              expect(line.slice(secondAt)).toBe(row.cells[1]);
            }
          });
        },
      ),
    );
  });
});

describe("print on the simulated router", () => {
  it("shows a disabled, commented address in the table and the detail form", async () => {
    const router = new SimulatedRouter({ defaults: false });
    const outcome = await router.runScript(
      '/ip address add address=10.0.0.1/24 interface=ether2 comment="lab net" disabled=yes\n/ip address print\n/ip address print detail',
    );
    expect(outcome.output.split("\n")).toEqual([
      "Flags: X - DISABLED",
      "Columns: ADDRESS, NETWORK, INTERFACE",
      "#   ADDRESS      NETWORK   INTERFACE",
      ";;; lab net",
      "0 X 10.0.0.1/24  10.0.0.0  ether2",
      "Flags: X - disabled, I - invalid; D - dynamic",
      " 0 X  ;;; lab net",
      "      address=10.0.0.1/24 network=10.0.0.0 interface=ether2 actual-interface=ether2",
    ]);
  });

  it("quotes text values in the detail form, not numbers or names of things", async () => {
    const router = new SimulatedRouter({ defaults: false });
    const outcome = await router.runScript(
      '/ip firewall filter add chain=input action=drop log-prefix="no way"\n/ip firewall filter print detail',
    );
    expect(outcome.output).toContain(' 0    chain=input action=drop log-prefix="no way"');
  });
});
