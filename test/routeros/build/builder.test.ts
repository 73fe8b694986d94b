import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/errors.js";
import { type BuildValue, buildCommand } from "../../../src/routeros/build/builder.js";
import type { CommandCall, CommandHost, RosValue } from "../../../src/routeros/language/host.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { testCatalog } from "../recording-host.js";

/** Test double: records calls and answers `find` with one id (the simulated router is built elsewhere). */
function recorder(): CommandHost & { calls: CommandCall[] } {
  const calls: CommandCall[] = [];
  return {
    calls,
    catalog: testCatalog,
    execute: (call) => {
      calls.push(call);
      return call.verb === "find" ? { value: ["*7"] } : {};
    },
    log: () => undefined,
    delay: async () => undefined,
  };
}

const rendered = (value: BuildValue): RosValue =>
  typeof value === "boolean" ? (value ? "yes" : "no") : typeof value === "number" ? String(value) : value;

describe("buildCommand", () => {
  it("writes the menu, the verb and the named values", () => {
    expect(buildCommand(["ip", "address"], "add", { address: "10.0.0.1/24", interface: "ether1" })).toBe(
      "/ip address add address=10.0.0.1/24 interface=ether1",
    );
  });

  it("renders booleans as yes/no, numbers as decimals, and leaves undefined values out", () => {
    expect(
      buildCommand(
        ["interface"],
        "set",
        { disabled: true, mtu: 1500, comment: undefined, "rx-flow-control": false },
        { positional: ["ether1"] },
      ),
    ).toBe("/interface set ether1 disabled=yes mtu=1500 rx-flow-control=no");
  });

  it("selects items with [find ...] and quotes what needs it", () => {
    expect(buildCommand(["interface"], "set", { comment: "uplink; main" }, { find: { name: "x y" } })).toBe(
      '/interface set [find name="x y"] comment="uplink; main"',
    );
    expect(buildCommand(["interface"], "remove", {}, { find: {} })).toBe("/interface remove [find]");
  });

  it("quotes an unnamed value that would read back as a flag or a condition", () => {
    expect(buildCommand(["interface"], "remove", {}, { positional: ["detail", "where", "ether1"] })).toBe(
      '/interface remove "detail" "where" ether1',
    );
  });

  it("rejects property and menu names RouterOS cannot have, naming them", () => {
    expect(() => buildCommand(["ip", "address"], "add", { Address: "x" })).toThrow(UsageError);
    expect(() => buildCommand(["ip", "address"], "add", { "a b": "x" })).toThrow(
      'invalid property name "a b" for /ip address add: RouterOS property names use only a-z, 0-9, "-" and "." and do not start with "."',
    );
    expect(() => buildCommand(["interface", "wifi"], "set", { ".ssid": "x" })).toThrow(
      /invalid property name ".ssid"/,
    );
    expect(() => buildCommand(["ip", "address"], "add", {}, { find: { "": "x" } })).toThrow(
      /invalid property name ""/,
    );
    expect(() => buildCommand(["ip address"], "add")).toThrow('invalid menu or command name "ip address"');
    expect(() => buildCommand(["ip"], "add", { mtu: Number.NaN })).toThrow(
      "/ip add mtu must be a finite number (got NaN)",
    );
  });

  it("builds lines that run back to exactly the same arguments, whatever the values hold", async () => {
    const key = fc.stringMatching(/^[a-z0-9-][a-z0-9.-]{0,9}$/);
    const value: fc.Arbitrary<BuildValue> = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({ unit: fc.constantFrom(...'"\\$?;[]{}() \n\r\t=#_aA0'.split("")) }),
      fc.constantFrom("detail", "where", "", "yes", "-1"),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(key, fc.option(value, { nil: undefined })),
        fc.array(value, { maxLength: 3 }),
        fc.option(fc.dictionary(key, value, { maxKeys: 3 }), { nil: undefined }),
        async (named, positional, find) => {
          const host = recorder();
          const line = buildCommand(["ip", "address"], "set", named, {
            positional,
            ...(find ? { find } : {}),
          });
          await runScript(line, host);
          const call = host.calls[host.calls.length - 1] as CommandCall;
          const expectedNamed = Object.entries(named).flatMap(([k, v]) =>
            v === undefined ? [] : [[k, rendered(v)]],
          );
          expect([...call.named]).toEqual(expectedNamed);
          expect(call.positional).toEqual([...(find ? [["*7"]] : []), ...positional.map(rendered)]);
          if (find)
            expect([...(host.calls[0]?.named ?? [])]).toEqual(
              Object.entries(find).map(([k, v]) => [k, rendered(v)]),
            );
        },
      ),
      { numRuns: 500 },
    );
  });
});
