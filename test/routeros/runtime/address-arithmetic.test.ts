/** Address arithmetic as scripts compute networks, broadcast addresses and IPv6 prefixes. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatIp6, parseIp6 } from "../../../src/routeros/runtime/address-arithmetic.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { failure, RecordingHost } from "../recording-host.js";

const run = async (source: string) => (await runScript(source, new RecordingHost())).output;

describe("address arithmetic", () => {
  it("computes the network, broadcast and next address of an IPv4 address", async () => {
    const script = [
      ":local address 192.168.88.17",
      ":local mask 255.255.255.240",
      ":put ($address & $mask)",
      ":put ($address | ~$mask)",
      ":put (($address & $mask) + 1)",
      ":put (192.168.88.30 - $address)",
      ":put ($address - 1)",
    ].join("\n");
    expect(await run(script)).toEqual([
      "192.168.88.16",
      "192.168.88.31",
      "192.168.88.17",
      "13",
      "192.168.88.16",
    ]);
  });

  it("masks and joins IPv6 addresses, written bare in an expression", async () => {
    const script = [
      ':local delegated [:toip6 "2001:db8:4:7::1"]',
      ":put ($delegated & ffff:ffff:ffff:ff00::)",
      ":put (($delegated & ffff:ffff:ffff:ffff::) | ::a64:ffff)",
      ":put (~ffff:ffff:ffff:ffff::)",
    ].join("\n");
    expect(await run(script)).toEqual(["2001:db8:4::", "2001:db8:4:7::a64:ffff", "::ffff:ffff:ffff:ffff"]);
  });

  it("keeps numbers numbers: ~ flips the bits of a 64-bit number", async () => {
    expect(await run(":put (~0)\n:put (6 & 3)")).toEqual(["-1", "2"]);
  });

  it("fails a bitwise operator between an IPv4 and an IPv6 address, naming the value", async () => {
    const error = await failure(runScript(":put (10.0.0.1 & ffff::)", new RecordingHost()));
    expect(error.message).toBe("cannot convert ffff:: to number (line 1 column 1)");
  });

  it("reads back what it prints for any IPv6 address (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (value) => {
        expect(parseIp6(formatIp6(value))).toBe(value);
      }),
    );
  });
});

describe("where conditions", () => {
  it("evaluates a part that reads no property, and reads .id and a lone -", async () => {
    const host = new RecordingHost();
    const script = [
      ':local site "branch"',
      ':put [/ip address find where comment=($site . "-wan")]',
      ":put [/ip address find where .id=*1 or comment=-]",
    ].join("\n");
    await runScript(script, host);
    const wheres = host.calls.map((call) => call.where);
    expect(wheres.every((where) => typeof where === "function")).toBe(true);
    const [first, second] = wheres;
    expect(first?.({ comment: "branch-wan" })).toBe(true);
    expect(first?.({ comment: "branch-lan" })).toBe(false);
    expect(second?.({ ".id": "*1", comment: "x" })).toBe(true);
    expect(second?.({ ".id": "*2", comment: "-" })).toBe(true);
    expect(second?.({ ".id": "*2", comment: "x" })).toBe(false);
  });
});
