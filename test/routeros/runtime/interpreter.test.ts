import { describe, expect, it } from "vitest";
import { runScript } from "../../../src/routeros/runtime/interpreter.js";
import { failure, RecordingHost } from "../recording-host.js";

describe("runScript commands", () => {
  it("hands each command to the host with its menu, arguments and position", async () => {
    const host = new RecordingHost();
    await runScript(
      "/ip address\nadd address=10.0.0.1/24 interface=ether1 disabled=no\n/interface print detail",
      host,
    );
    expect(
      host.calls.map((c) => ({
        menu: c.menu,
        verb: c.verb,
        named: Object.fromEntries(c.named),
        line: c.line,
        column: c.column,
      })),
    ).toEqual([
      {
        menu: ["ip", "address"],
        verb: "add",
        named: { address: "10.0.0.1/24", interface: "ether1", disabled: "no" },
        line: 2,
        column: 1,
      },
      { menu: ["interface"], verb: "print", named: { detail: true }, line: 3, column: 1 },
    ]);
  });

  it("passes [find ...] results as the unnamed argument", async () => {
    const host = new RecordingHost({
      interface: [{ name: "ether1", "default-name": "ether1" }, { name: "ether2" }],
    });
    await runScript('/interface set [find default-name=ether1] name="wan link"', host);
    expect(host.items("interface").map((item) => item.name)).toEqual(["wan link", "ether2"]);
    expect(host.calls[1]?.positional).toEqual([["*1"]]);
  });

  it("filters with a compiled where clause", async () => {
    const host = new RecordingHost({
      "ip/address": [
        { address: "10.0.0.1/24", interface: "ether1", disabled: "false" },
        { address: "192.168.1.1/24", interface: "ether2", disabled: "true" },
        { address: "10.9.0.1/16", interface: "ether3", disabled: "false", comment: "mgmt-x" },
      ],
    });
    const run = async (condition: string) =>
      (await runScript(`/ip address print where ${condition}`, host)).output.map(
        (line) => /interface=(\S+)/.exec(line)?.[1],
      );
    expect(await run("disabled=no")).toEqual(["ether1", "ether3"]);
    expect(await run("!disabled and interface!=ether1")).toEqual(["ether3"]);
    expect(await run('disabled=yes or comment~"^mgmt"')).toEqual(["ether2", "ether3"]);
    expect(await run("address in 10.0.0.0/8")).toEqual(["ether1", "ether3"]);
    expect(await run("(interface=ether1 or interface=ether2) and !disabled")).toEqual(["ether1"]);
  });

  it("evaluates variables and substitutions in a where clause before compiling it", async () => {
    const host = new RecordingHost({
      interface: [
        { name: "a", mtu: "1500" },
        { name: "b", mtu: "9000" },
      ],
    });
    const { output } = await runScript(":local big 2000\n:put [:len [/interface find where mtu>$big]]", host);
    expect(output).toEqual(["1"]);
  });

  it("places a host failure at the failing command and keeps what ran before", async () => {
    const host = new RecordingHost();
    const error = await failure(
      runScript(
        "/ip address add address=10.0.0.1/24\n:put done\n  /ip address add address=10.0.0.1/24\n:put never",
        host,
      ),
    );
    expect(error.message).toBe("failure: already have such address (line 3 column 3)");
    expect(error.text).toBe("failure: already have such address");
    expect(host.items("ip/address")).toHaveLength(1);
  });

  it("reports output lines to onOutput as they come, also when the script fails", async () => {
    const lines: string[] = [];
    await failure(
      runScript(':put one\n:error "stop"\n:put two', new RecordingHost(), {
        onOutput: (line) => lines.push(line),
      }),
    );
    expect(lines).toEqual(["one"]);
  });

  it("starts relative commands in the given menu", async () => {
    const host = new RecordingHost();
    await runScript("add address=1.1.1.1/32", host, { menu: ["ip", "address"] });
    expect(host.calls[0]?.menu).toEqual(["ip", "address"]);
  });
});

describe("runScript global commands", () => {
  it("puts values, strings with substitutions and arithmetic", async () => {
    const { output } = await runScript(
      ':local a 3\n:local s "x"\n:put ($a + 4 * 2)\n:put "s=$s len=$[:len $s] next=$($a + 1)"\n:put ($s . "y")\n:put [:typeof $a]\n:put [:pick "hello" 1 3]',
      new RecordingHost(),
    );
    expect(output).toEqual(["11", "s=x len=1 next=4", "xy", "num", "el"]);
  });

  it('substitutes $"quoted names", keeps escaped dollars and walks array literals', async () => {
    const { output } = await runScript(
      ':local "my var" "v"\n:put "$"my var"\\$x"\n:local list {"a";"b c";$"my var"}\n:put $list\n:foreach s in=$list do={ :put [:len $s] }\n:put [:pick $list 1]',
      new RecordingHost(),
    );
    expect(output).toEqual(["v$x", "a;b c;v", "1", "3", "1", "b c"]);
  });

  it("scopes locals per block and shares globals", async () => {
    const { output } = await runScript(
      ":global g 1\n:local a 1\n{ :local a 2; :put $a; :global g; :set g 5 }\n:put $a\n:put $g",
      new RecordingHost(),
    );
    expect(output).toEqual(["2", "1", "5"]);
  });

  it("keeps globals in the map the host passes, from one script to the next", async () => {
    const host = new RecordingHost();
    const globals = new Map();
    await runScript(":global g 1; :global h", host, { globals });
    const read = ':global g; :put ("g=" . $g)';
    expect((await runScript(read, host, { globals })).output).toEqual(["g=1"]);
    expect([...globals.keys()]).toEqual(["g", "h"]);
    // without the map, a script's globals end with it
    expect((await runScript(read, host)).output).toEqual(["g="]);
  });

  it("runs :if branches on conditions", async () => {
    const { output } = await runScript(
      ':local x "a"\n:if ($x = "a") do={ :put yes } else={ :put no }\n:if ($x != "a" || false) do={ :put yes } else={ :put no }',
      new RecordingHost(),
    );
    expect(output).toEqual(["yes", "no"]);
  });

  it("loops with :foreach over [find]", async () => {
    const host = new RecordingHost({ interface: [{ name: "a" }, { name: "b" }] });
    const { output } = await runScript(
      ":foreach i in=[/interface find] do={ :put [/interface get $i name] }",
      host,
    );
    expect(output).toEqual(["a", "b"]);
  });

  it("catches a failure with :do on-error and goes on", async () => {
    const host = new RecordingHost({ "ip/address": [{ address: "10.0.0.1/24" }] });
    const { output } = await runScript(
      ':do { /ip address add address=10.0.0.1/24; :put never } on-error={ :put "caught" }\n:put after',
      host,
    );
    expect(output).toEqual(["caught", "after"]);
  });

  it("repeats :do while its condition holds", async () => {
    const { output } = await runScript(
      ":local i 0\n:do { :set i ($i + 1) } while=($i < 3)\n:put $i",
      new RecordingHost(),
    );
    expect(output).toEqual(["3"]);
  });

  it("counts with :for, `to` included, down when from > to, by any step", async () => {
    const run = async (script: string) => (await runScript(script, new RecordingHost())).output;
    expect(await run(":for i from=1 to=3 do={ :put $i }")).toEqual(["1", "2", "3"]);
    expect(await run(":for i from=3 to=1 do={ :put $i }")).toEqual(["3", "2", "1"]);
    expect(await run(":for i from=0 to=10 step=5 do={ :put $i }")).toEqual(["0", "5", "10"]);
    expect(await run(":for i from=1 to=0 step=1 do={ :put $i }\n:put done")).toEqual(["done"]);
    const error = await failure(runScript(":for i from=1 to=x do={ :put $i }", new RecordingHost()));
    expect(error.message).toBe("invalid value for argument to (line 1 column 1)");
  });

  it("repeats :while its condition holds, checking it first", async () => {
    const { output } = await runScript(
      ":local i 0\n:while ($i < 3) do={ :set i ($i + 1) }\n:while (false) do={ :put never }\n:put $i",
      new RecordingHost(),
    );
    expect(output).toEqual(["3"]);
  });

  it("logs with script topics and delays through the host", async () => {
    const host = new RecordingHost();
    await runScript(':log warning "disk low"\n:delay 1m30s\n:delay 500ms\n:delay 2', host);
    expect(host.logs).toEqual([{ topics: ["script", "warning"], message: "disk low" }]);
    expect(host.delays).toEqual([90_000, 500, 2000]);
  });

  it("fails :error and bad values at their command", async () => {
    expect((await failure(runScript(':put 1\n  :error "custom"', new RecordingHost()))).message).toBe(
      "custom (line 2 column 3)",
    );
    expect((await failure(runScript(":delay soon", new RecordingHost()))).message).toBe(
      "invalid value for argument delay-time (line 1 column 1)",
    );
    expect((await failure(runScript(":put (1 / 0)", new RecordingHost()))).text).toBe("division by zero");
  });

  it("rejects the whole script on a parse error before running anything", async () => {
    const host = new RecordingHost();
    await expect(runScript("/interface print\n/interface frob", host)).rejects.toThrow(
      "bad command name frob (line 2 column 12)",
    );
    expect(host.calls).toEqual([]);
  });

  it("stops at the next command once aborted, and during a delay", async () => {
    const controller = new AbortController();
    const host = new RecordingHost();
    host.delay = () => new Promise(() => controller.abort(new Error("cancelled")));
    await expect(
      runScript(":delay 10s\n/interface print", host, { signal: controller.signal }),
    ).rejects.toThrow("cancelled");
    expect(host.calls).toEqual([]);
    const aborted = new AbortController();
    aborted.abort(new Error("gone"));
    await expect(runScript(":put 1", new RecordingHost(), { signal: aborted.signal })).rejects.toThrow(
      "gone",
    );
  });

  it("stops a runaway loop at its statement limit, pointing at the loop", async () => {
    const host = new RecordingHost();
    const error = await failure(
      runScript(":local i 0\n:do {\n  :set i ($i + 1)\n} while=(true)", host, { maxStatements: 5000 }),
    );
    expect(error.text).toBe("script stopped after 5000 statements, the limit of this router");
    expect(error.line).toBe(2);
  });

  it("lets timers run while a loop runs, so a time-out signal can stop it", async () => {
    // The loop never awaits anything unsettled: without the interpreter's turns of the event loop, neither the
    // interval nor the signal's timer would ever fire.
    let ticks = 0;
    const interval = setInterval(() => ticks++, 20);
    try {
      await expect(
        runScript(":do {} while=(true)", new RecordingHost(), {
          signal: AbortSignal.timeout(200),
          maxStatements: Number.POSITIVE_INFINITY,
        }),
      ).rejects.toThrow(/timeout/i);
    } finally {
      clearInterval(interval);
    }
    // The signal's rejection above is what stopped the loop; the interval's ticks show timers ran meanwhile.
    expect(ticks).toBeGreaterThan(0);
  });
});
