import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../../../src/routeros/errors.js";
import { type LineEvent, LineReader } from "../../../../src/routeros/simulator/console/line-reader.js";
import {
  ConsoleSession,
  openBrackets,
  runCommandLine,
} from "../../../../src/routeros/simulator/console/session.js";
import { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";
import { waitFor } from "../../../helpers/wait-for.js";

function sessionOn(router: SimulatedRouter): ConsoleSession {
  return new ConsoleSession({
    run: (source, signal) => router.runScript(source, signal),
    user: "admin",
    identity: () => router.table("system-identity").items[0]?.values.name ?? "?",
    isMenu: (path) => router.catalog.isMenu(path),
  });
}

describe("a console session", () => {
  it("prompts with the identity and the menu, and runs relative lines in that menu", async () => {
    const router = new SimulatedRouter({ defaults: false });
    const session = sessionOn(router);
    expect(session.prompt()).toBe("[admin@MikroTik] > ");
    expect(await session.enter("/ip address")).toEqual({ output: [], quit: false });
    expect(session.prompt()).toBe("[admin@MikroTik] /ip/address> ");
    await session.enter("add address=10.0.0.1/24 interface=ether2");
    expect((await session.enter("print count-only")).output).toEqual(["1"]);
    await session.enter("..");
    expect(session.prompt()).toBe("[admin@MikroTik] /ip> ");
    await session.enter("/");
    await session.enter("/system identity set name=core");
    expect(session.prompt()).toBe("[admin@core] > ");
  });

  it("waits for the lines that close a bracket or follow a backslash", async () => {
    const session = sessionOn(new SimulatedRouter({ defaults: false }));
    expect(await session.enter(":for i from=1 to=2 do={")).toEqual({ output: [], quit: false });
    expect(session.prompt()).toBe("{... ");
    expect(await session.enter(":put $i }")).toEqual({ output: ["1", "2"], quit: false });
    await session.enter(":put \\");
    expect((await session.enter('"joined"')).output).toEqual(["joined"]);
  });

  it("prints the router's error text, and ends on quit", async () => {
    const session = sessionOn(new SimulatedRouter({ defaults: false }));
    expect((await session.enter(":put (1 +)")).output).toEqual(["syntax error (line 1 column 10)"]);
    expect((await session.enter("/ip addresss print")).output[0]).toMatch(/^bad command name addresss/);
    await session.enter("/ip address add address=10.0.0.1/24 interface=ether2");
    expect((await session.enter("/ip address add address=10.0.0.1/24 interface=ether2")).output).toEqual([
      "failure: already have such address",
    ]);
    expect((await session.enter("/interface set ether99 mtu=1400")).output).toEqual(["no such item"]);
    expect(await session.enter("quit")).toEqual({ output: ["interrupted"], quit: true });
  });

  it("stops a running command when its signal aborts, printing the reason as RouterOS prints Ctrl-C", async () => {
    const router = new SimulatedRouter({ defaults: false });
    const session = sessionOn(router);
    const stop = new AbortController();
    const reply = session.enter(
      ':put before; /system identity set name=waiting; :delay 1h; :put "never"',
      stop.signal,
    );
    // Aborted once the line runs its delay: an abort before its first command would stop it before "before".
    await waitFor(() => router.table("system-identity").items[0]?.values.name === "waiting", {
      what: "the line to reach its delay",
    });
    stop.abort(new RouterOsError("interrupted"));
    expect(await reply).toEqual({ output: ["before", "interrupted"], quit: false });
  });

  it("gives a command line's output and a status for exec", async () => {
    const router = new SimulatedRouter({ defaults: false });
    const run = (source: string) => router.runScript(source);
    expect(await runCommandLine(":put a; :put b", run)).toEqual({ output: ["a", "b"], status: 0 });
    expect(await runCommandLine(':put a; :error "stop"', run)).toEqual({ output: ["a", "stop"], status: 1 });
  });

  it("counts open brackets outside quotes only", () => {
    expect(openBrackets('{ :put "}" ')).toBe(1);
    expect(openBrackets(":put [/ip address find]")).toBe(0);
    expect(openBrackets(':put "open')).toBe(1);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ]{0,20}$/), (word) => {
        expect(openBrackets(`{${word}}`)).toBe(0);
        expect(openBrackets(`:put "${word}{"`)).toBe(0);
      }),
    );
  });
});

describe("the console's line reader", () => {
  const read = (input: string) => {
    const echoed: string[] = [];
    const events: LineEvent[] = new LineReader((text) => echoed.push(text)).feed(input);
    return { events, echo: echoed.join("") };
  };

  it("ends a line at CR, LF or CR LF, once", () => {
    expect(read("a\rb\nc\r\nd").events).toEqual([
      { kind: "line", text: "a" },
      { kind: "line", text: "b" },
      { kind: "line", text: "c" },
    ]);
  });

  it("takes back a character on Backspace and echoes what the line holds", () => {
    const { events, echo } = read("pri\x7fint\r");
    expect(events).toEqual([{ kind: "line", text: "print" }]);
    expect(echo).toBe("pri\b \bint\r\n");
  });

  it("skips escape sequences, drops the line on Ctrl-C, logs out on Ctrl-D at an empty line", () => {
    expect(read("\x1b[Aab\x1bOPc\r").events).toEqual([{ kind: "line", text: "abc" }]);
    expect(read("abc\x03\x04").events).toEqual([{ kind: "cancel" }, { kind: "logout" }]);
    expect(read("abc\x04").events).toEqual([]);
  });

  it("reads the same lines however the input is split", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[ -~]{0,10}$/), { maxLength: 5 }),
        fc.nat(60),
        (lines, cut) => {
          const input = lines.map((line) => `${line}\r\n`).join("");
          const reader = new LineReader(() => {});
          const at = Math.min(cut, input.length);
          const events = [...reader.feed(input.slice(0, at)), ...reader.feed(input.slice(at))];
          expect(events).toEqual(lines.map((text) => ({ kind: "line", text })));
        },
      ),
    );
  });
});
