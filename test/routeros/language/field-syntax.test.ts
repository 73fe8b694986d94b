/**
 * Syntax that RouterOS 7.24 reads and configuration scripts in the field use: `:onerror` with its block
 * written bare, `:retry`, `:exit`, `->`, a bare `[ ... ]` statement, `({})`, bitwise operators, `:set $var`,
 * the dotted argument groups of v7 exports and the conversion functions.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../../src/routeros/errors.js";
import type { CommandNode } from "../../../src/routeros/language/ast.js";
import { parseScript } from "../../../src/routeros/language/parser.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { RecordingHost } from "../recording-host.js";

const run = async (source: string, host = new RecordingHost()) => (await runScript(source, host)).output;

describe(":onerror with the block written bare", () => {
  it("runs do= with the error when the block fails", async () => {
    const script = [
      ":local ready false",
      ':onerror err { :if ($ready != true) do={ :error "config not loaded" } } do={ :put "stopped" }',
    ].join("\n");
    expect(await run(script)).toEqual(["stopped"]);
  });

  it("leaves do= alone when the block succeeds", async () => {
    expect(await run(':onerror err { :put "backup done" } do={ :put "backup failed" }')).toEqual([
      "backup done",
    ]);
  });

  it("refuses a second block beside in=", () => {
    expect(() => parseScript(":onerror e in={ :put 1 } { :put 2 } do={ :put 3 }")).toThrow(RouterOsError);
  });
});

describe(":retry", () => {
  it("runs the block again after a failure, waiting delay= between tries", async () => {
    const host = new RecordingHost();
    const script = [
      ":local tries 0",
      ':retry { :set tries ($tries + 1); :if ($tries < 3) do={ :error "dns not ready" } } delay=2s max=5',
      ':put "up after $tries"',
    ].join("\n");
    expect(await run(script, host)).toEqual(["up after 3"]);
    expect(host.delays).toEqual([2000, 2000]);
  });

  it("runs on-error= once max= tries failed, and otherwise fails with the last error", async () => {
    expect(
      await run(':retry command={ :error "gateway down" } delay=1s max=2 on-error={ :put "giving up" }'),
    ).toEqual(["giving up"]);
    await expect(run(':retry { :error "gateway down" } delay=1s max=3')).rejects.toThrow("gateway down");
  });
});

describe(":exit", () => {
  it("ends the script; what ran stays applied", async () => {
    const host = new RecordingHost();
    await run('/system identity set name=edge\n:exit\n/system identity set name="never"', host);
    expect(host.calls.map((call) => call.named.get("name"))).toEqual(["edge"]);
  });
});

describe("-> (an item of an array)", () => {
  it("picks a list's item by position, nil past its end", async () => {
    const script = [
      ':local uplinks {"ether1";"sfp-sfpplus1"}',
      ":put ($uplinks->1)",
      ":put [:typeof ($uplinks->5)]",
    ].join("\n");
    expect(await run(script)).toEqual(["sfp-sfpplus1", "nil"]);
  });

  it("binds tighter than comparisons", async () => {
    expect(await run(':local vlans {10;20;30}\n:if ($vlans->0 = 10) do={ :put "first is 10" }')).toEqual([
      "first is 10",
    ]);
  });
});

describe("a bare [ ... ] as a statement", () => {
  it("runs the commands inside", async () => {
    const host = new RecordingHost();
    await run("[/system identity set name=branch-7]", host);
    expect(host.calls).toHaveLength(1);
  });

  it("runs code from :parse with the arguments after it", async () => {
    const script = ':local notify ":put (\\"to admin: \\" . \\$text)"\n[[:parse $notify] text="link down"]';
    expect(await run(script)).toEqual(["to admin: link down"]);
  });
});

describe("arrays and bitwise operators in expressions", () => {
  it("reads ({}) as an empty array", async () => {
    expect(await run(":local seen ({})\n:put [:len $seen]\n:put [:typeof $seen]")).toEqual(["0", "array"]);
  });

  it("computes & | ^ << >> on 64-bit numbers", async () => {
    expect(await run(":put (6 & 3)\n:put (4 | 1)\n:put (5 ^ 1)\n:put (1 << 40)\n:put (256 >> 4)")).toEqual([
      "2",
      "5",
      "4",
      "1099511627776",
      "16",
    ]);
  });

  it("agrees with BigInt for any pair of 32-bit numbers", async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(0xffffffff), fc.nat(0xffffffff), async (a, b) => {
        const [and, or] = await run(`:put (${a} & ${b})\n:put (${a} | ${b})`);
        expect(and).toBe(String(BigInt(a) & BigInt(b)));
        expect(or).toBe(String(BigInt(a) | BigInt(b)));
      }),
      { numRuns: 50 },
    );
  });
});

describe(":set $name", () => {
  it("sets the variable as :set name does", async () => {
    expect(await run(":local retries 1\n:set $retries 4\n:put $retries")).toEqual(["4"]);
  });

  it("still refuses a variable never declared", () => {
    expect(() => parseScript(":set $undeclared 4")).toThrow(RouterOsError);
  });
});

describe("dotted argument groups", () => {
  it("reads .name= as a member of the group named before it", () => {
    const [command] = parseScript(
      "/interface wifi set [find default-name=wifi1] configuration.mode=ap .ssid=office .country=Latvia channel.band=5ghz-ax .skip-dfs-channels=10min-cac",
    ).body.statements as CommandNode[];
    expect(command?.named.map((arg) => arg.name)).toEqual([
      "configuration.mode",
      "configuration.ssid",
      "configuration.country",
      "channel.band",
      "channel.skip-dfs-channels",
    ]);
  });
});

describe("conversion functions", () => {
  it(":totime and :tonsec read RouterOS times; :tocrlf ends lines with CR LF", async () => {
    expect(await run(':put [:totime "1h30m"]\n:put [:tonsec "1s"]\n:put [:typeof [:totime "soon"]]')).toEqual(
      ["01:30:00", "1000000000", "nil"],
    );
    expect(await run(':put [:len [:tocrlf "a\\nb"]]')).toEqual(["4"]);
  });

  it(":jobname is empty outside a named script", async () => {
    expect(await run(":put [:len [:jobname]]")).toEqual(["0"]);
  });

  it(":timestamp is the time since the epoch on the host's clock", async () => {
    const host = new RecordingHost();
    const at = new Date(Date.UTC(1970, 0, 8, 1, 2, 3));
    expect(await run(":put [:timestamp]", Object.assign(host, { now: () => at }))).toEqual(["1w01:02:03"]);
  });
});

describe("global commands at the root without a colon", () => {
  it("reads if, put, return and pick as :if, :put, :return and :pick", async () => {
    const script = [
      ":local wan do={ return [pick $1 0 5] }",
      'if ([$wan "ether1-isp"] = "ether") do={ put "wan is ethernet" }',
    ].join("\n");
    expect(await run(script)).toEqual(["wan is ethernet"]);
  });

  it("leaves a menu's own commands alone", () => {
    const [command] = parseScript("/ip address\nset [find] disabled=yes").body.statements as CommandNode[];
    expect(command).toMatchObject({ kind: "command", menu: ["ip", "address"], verb: "set" });
  });
});

describe("arrays built in a script", () => {
  it("joins ($list, $item) into one array", async () => {
    const script =
      ':local ports {"ether2";"ether3"}\n:set ports ($ports, "ether4")\n:put $ports\n:put [:len $ports]';
    expect(await run(script)).toEqual(["ether2;ether3;ether4", "3"]);
  });

  it("sets one item with :set ($list->i) and appends at its length", async () => {
    const script = ':local dns {"1.1.1.1"}\n:set ($dns->1) "9.9.9.9"\n:set ($dns->0) "8.8.8.8"\n:put $dns';
    expect(await run(script)).toEqual(["8.8.8.8;9.9.9.9"]);
  });

  it("refuses a position past the end of the list", async () => {
    await expect(run(':local dns {"1.1.1.1"}\n:set ($dns->3) "9.9.9.9"')).rejects.toThrow(
      "invalid value for argument index (3) (line 2 column 1)",
    );
  });
});

describe(":toip, :toip6, :tobool, :tolf", () => {
  it("converts what is of the kind and gives nil for what is not", async () => {
    const script = [
      ':put [:toip "192.168.88.1"]',
      ':put [:typeof [:toip "gw.example.net"]]',
      ':put [:toip6 "2001:DB8::1"]',
      ':put [:typeof [:toip6 "2001:db8::1::2"]]',
      ':put [:tobool "yes"]',
      ":put [:tobool 0]",
      ':put [:typeof [:tobool "maybe"]]',
      ':put [:len [:tolf "a\\r\\nb"]]',
    ].join("\n");
    expect(await run(script)).toEqual([
      "192.168.88.1",
      "nil",
      "2001:db8::1",
      "nil",
      "true",
      "false",
      "nil",
      "3",
    ]);
  });
});

describe("a number before *", () => {
  it("multiplies, while an item id keeps its star", async () => {
    expect(await run(":put (10*60)\n:put [:totime (10*60)]\n:put ((1+2)*3)")).toEqual([
      "600",
      "00:10:00",
      "9",
    ]);
    expect(await run(':put [:typeof ("*1A")]')).toEqual(["str"]);
  });
});
