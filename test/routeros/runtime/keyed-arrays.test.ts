/**
 * Arrays with keys, as configuration scripts use them: a table of settings per site, a map from a name to a
 * function, `:foreach name,value in=$settings`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseScript } from "../../../src/routeros/language/parser.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { failure, RecordingHost } from "../recording-host.js";

const run = async (source: string) => (await runScript(source, new RecordingHost())).output;

describe("arrays with keys", () => {
  it("reads an item by key and gives nil for a key it does not hold", async () => {
    const script = [
      ':local wan {"interface"="ether1";"mtu"=1500;disabled=false}',
      ':put ($wan->"interface")',
      ':put (($wan->"mtu") + 20)',
      ':put [:typeof ($wan->"gateway")]',
      ":put [:typeof ($wan->disabled)]",
    ].join("\n");
    expect(await run(script)).toEqual(["ether1", "1520", "nil", "bool"]);
  });

  it("orders the unkeyed items first, then the keyed by key, whatever order they were written in", async () => {
    expect(await run(':local a {"vlan20"=20;"lan";"vlan10"=10;"guest"}\n:put $a\n:put [:len $a]')).toEqual([
      "lan;guest;vlan10=10;vlan20=20",
      "4",
    ]);
  });

  it("keeps the last value of a key written twice", async () => {
    expect(await run(':put {"dns"="1.1.1.1";"dns"="9.9.9.9"}')).toEqual(["dns=9.9.9.9"]);
  });

  it("sets a key, adds a new one in its order and sets into an array inside", async () => {
    const script = [
      ':local sites {"office"={"vlan"=10};"home"={"vlan"=20}}',
      ':set ($sites->"office"->"vlan") 11',
      ':set ($sites->"lab") {"vlan"=30}',
      ':set ($sites->"home"->"gateway") "192.168.20.1"',
      ':put ($sites->"office"->"vlan")',
      ":put $sites",
    ].join("\n");
    expect(await run(script)).toEqual(["11", "home=gateway=192.168.20.1;vlan=20;lab=vlan=30;office=vlan=11"]);
  });

  it("walks keys and values with :foreach key,value, positions for items without a key", async () => {
    const script = [
      ':local mtu {"ether1"=1500;"wg0"=1420}',
      ':foreach name,size in=$mtu do={ :put "$name $size" }',
      ':foreach i,port in={"ether2";"ether3"} do={ :put "$i $port" }',
    ].join("\n");
    expect(await run(script)).toEqual(["ether1 1500", "wg0 1420", "0 ether2", "1 ether3"]);
  });

  it("joins keyed arrays with ($a, $b), the right side winning a key both hold", async () => {
    const script = ':local base {"ntp"="pool.ntp.org";"dns"="1.1.1.1"}\n:put ($base, {"dns"="9.9.9.9"})';
    expect(await run(script)).toEqual(["dns=9.9.9.9;ntp=pool.ntp.org"]);
  });

  it("skips # comment lines between the items of an array written over several lines", async () => {
    const script = [
      ":global lists {",
      '  # "blocked"={ "url"="https://lists.example.net/blocked" };',
      '  "allowed"={ "timeout"=1w };',
      "}",
      ':put ($lists->"allowed"->"timeout")',
    ].join("\n");
    expect(await run(script)).toEqual(["1w"]);
  });

  it("keeps a string item that is no key whole when text follows it", async () => {
    expect(await run(':local n 5\n:put {"vlan"$n;"x"}')).toEqual(["vlan5;x"]);
  });

  it("runs a function held under a key: ($handlers->$name) arg", async () => {
    const script = [
      ':global notifyLog do={ :put "log: $1" }',
      ':global notifyMail do={ :put "mail: $1" }',
      ':global handlers {"log"=$notifyLog;"mail"=$notifyMail}',
      ':foreach name,handler in=$handlers do={ ($handlers->$name) "backup done" }',
    ].join("\n");
    expect(await run(script)).toEqual(["log: backup done", "mail: backup done"]);
  });

  it("appends in a function with :set ($array->[:len $array]) on an argument", async () => {
    const script = [
      ":global append do={ :set ($list->[:len $list]) $item; :return $list }",
      ':local ports {"ether2"}',
      ':put [$append list=$ports item="ether3"]',
    ].join("\n");
    expect(await run(script)).toEqual(["ether2;ether3"]);
  });

  it("fails :set on an item of something that is no variable", async () => {
    expect(() => parseScript(':set ({"a"=1}->"a") 2')).toThrow("syntax error");
  });

  it("fails a :foreach with more than two names", async () => {
    expect(() => parseScript(":foreach a,b,c in={1} do={}")).toThrow("syntax error (line 1 column 10)");
  });

  it("fails a key that is an array", async () => {
    const error = await failure(runScript(":local a {1}\n:set ($a->{1;2}) 3", new RecordingHost()));
    expect(error.message).toBe("invalid value for argument index (an array) (line 2 column 1)");
  });

  it("keeps a global's keys through a router's snapshot, as stored by the service", async () => {
    const router = new SimulatedRouter();
    await router.runScript(':global sites {"office"={"vlan"=10};"home"={1;2}}');
    const restored = new SimulatedRouter();
    restored.restore(JSON.parse(JSON.stringify(router.snapshot())));
    const outcome = await restored.runScript(':global sites; :put ($sites->"office"->"vlan"); :put $sites');
    expect(outcome).toMatchObject({ ok: true, output: "10\nhome=1;2;office=vlan=10" });
  });

  it("prints a global's keys in :environment print, quoting one that is no plain word", async () => {
    const script =
      ':global uplink {"name"="wan";mtu=1500;"dns servers"="1.1.1.1";"ether1"}\n:environment print';
    expect(await run(script)).toEqual(['uplink={"ether1"; "dns servers"="1.1.1.1"; mtu=1500; name="wan"}']);
  });

  it("reads back every key it was given, in the order of the keys (property)", async () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, fc.integer({ min: 0, max: 4094 }), { minKeys: 1 }), async (map) => {
        const literal = Object.entries(map)
          .map(([k, v]) => `"${k}"=${v}`)
          .join(";");
        const script = `:local a {${literal}}\n:foreach k,v in=$a do={ :put "$k=$v" }\n:put [:len $a]`;
        const keys = Object.keys(map).sort();
        expect(await run(script)).toEqual([...keys.map((k) => `${k}=${map[k]}`), String(keys.length)]);
      }),
      { numRuns: 50 },
    );
  });
});
