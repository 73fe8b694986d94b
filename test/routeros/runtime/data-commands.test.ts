/**
 * `:convert`, `:serialize`, `:deserialize`, `:rndstr`, `:rndnum`, as scripts that talk to web services and
 * build names use them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseScript } from "../../../src/routeros/language/parser.js";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { failure, RecordingHost } from "../recording-host.js";

const run = async (source: string) => (await runScript(source, new RecordingHost())).output;

describe(":convert", () => {
  it("encodes text as hex, base64 and for a URL, and back", async () => {
    const script = [
      ':put [:convert "router" to=hex]',
      ':put [:convert "726f75746572" from=hex]',
      ':put [:convert "admin:secret" to=base64]',
      ':put [:convert from=base64 "YWRtaW46c2VjcmV0"]',
      ':put [:convert to=url "office wifi&guest"]',
      ':put [:convert from=url value="office%20wifi"]',
    ].join("\n");
    expect(await run(script)).toEqual([
      "726f75746572",
      "router",
      "YWRtaW46c2VjcmV0",
      "admin:secret",
      "office%20wifi%26guest",
      "office wifi",
    ]);
  });

  it("turns a number into hex for an IPv6 mask group, and hex into a number", async () => {
    expect(
      await run(':put [:convert from=num to=hex 65408]\n:put [:convert from=hex to=num "ff80"]'),
    ).toEqual(["ff80", "65408"]);
  });

  it("hashes with transform= before encoding", async () => {
    expect(
      await run(':put [:convert transform=md5 to=hex "abc"]\n:put [:convert transform=uc "wan"]'),
    ).toEqual(["900150983cd24fb0d6963f7d28e17f72", "WAN"]);
  });

  it("fails a kind it does not know, naming the argument", async () => {
    const error = await failure(runScript(':put [:convert to=base58 "x"]', new RecordingHost()));
    expect(error.message).toBe("invalid value for argument to (line 1 column 7)");
  });

  it("round-trips any text through hex and base64 (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[A-Za-z0-9 ._:/-]{0,24}$/), async (text) => {
        const script = `:local t "${text}"\n:put ([:convert from=hex [:convert to=hex $t]] = $t)\n:put ([:convert from=base64 [:convert to=base64 $t]] = $t)`;
        expect(await run(script)).toEqual(["true", "true"]);
      }),
      { numRuns: 40 },
    );
  });
});

describe(":serialize and :deserialize", () => {
  it("writes JSON of lists and arrays with keys", async () => {
    expect(
      await run(':put [:serialize to=json {"name"="wan";"ports"={"ether1";"ether2"};"mtu"=1500}]'),
    ).toEqual(['{"mtu":1500,"name":"wan","ports":["ether1","ether2"]}']);
  });

  it("reads JSON into arrays with keys", async () => {
    const script = [
      ':local reply [:deserialize from=json "{\\"ip\\":\\"203.0.113.7\\",\\"ttl\\":300,\\"tags\\":[\\"home\\"]}"]',
      ':put ($reply->"ip")',
      ':put (($reply->"ttl") * 2)',
      ':put ($reply->"tags"->0)',
    ].join("\n");
    expect(await run(script)).toEqual(["203.0.113.7", "600", "home"]);
  });

  it("splits delimited text with from=dsv, plain or by the header line", async () => {
    const script = [
      ':put ([:deserialize value="192.168.88.1/24" from=dsv delimiter="/" options=dsv.plain]->0->1)',
      ':local rows [:deserialize from=dsv value="name,vlan\\nguest,30"]',
      ':put ($rows->0->"vlan")',
    ].join("\n");
    expect(await run(script)).toEqual(["24", "30"]);
  });

  it("fails text that is no JSON, and a missing from=", async () => {
    const bad = await failure(runScript(':put [:deserialize from=json "{oops"]', new RecordingHost()));
    expect(bad.message).toBe("failure: invalid JSON (line 1 column 7)");
    const missing = await failure(runScript(':put [:deserialize "{}"]', new RecordingHost()));
    expect(missing.message).toBe("missing value(s) of argument(s) from (line 1 column 7)");
  });

  it("round-trips arrays with keys through JSON (property)", async () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(key, fc.integer({ min: -1000, max: 1000 }), { minKeys: 1 }),
        async (map) => {
          const literal = Object.entries(map)
            .map(([k, v]) => `"${k}"=(${v})`)
            .join(";");
          const script = `:local a {${literal}}\n:put ([:deserialize from=json [:serialize to=json $a]] = $a)`;
          expect(await run(script)).toEqual(["true"]);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe(":rndstr and :rndnum", () => {
  it("gives a number in the range and a string of the characters asked for", async () => {
    const script = [
      ":local n [:rndnum from=10 to=12]",
      ":put ($n >= 10 && $n <= 12)",
      ':local s [:rndstr from="abc" length=20]',
      ":put [:len $s]",
      ":put ([:len [:rndstr]] = 16)",
    ].join("\n");
    const [inRange, length, defaultLength] = await run(script);
    expect([inRange, length, defaultLength]).toEqual(["true", "20", "true"]);
  });

  it("is the same on the same simulated router seed, and is written with a slash too", async () => {
    const script = ":put [/rndstr length=8]\n:put [:rndnum from=1 to=1000]";
    const first = await new SimulatedRouter({ seedText: "branch-1" }).runScript(script);
    const second = await new SimulatedRouter({ seedText: "branch-1" }).runScript(script);
    expect(first.ok && second.ok).toBe(true);
    expect(first.output).toBe(second.output);
  });

  it("fails :rndnum without to= and an argument the command does not take", async () => {
    const error = await failure(runScript(":put [:rndnum from=1]", new RecordingHost()));
    expect(error.message).toBe("missing value(s) of argument(s) to (line 1 column 7)");
    expect(() => parseScript(":put [:rndstr size=8]")).toThrow("syntax error (line 1 column 15)");
  });
});
