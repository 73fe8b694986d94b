/**
 * The SSH client's console lines and how their output is read back (ssh-client.ts): the API's words become one
 * console line, and only lines under the command's marker are the answer. Against the simulated router itself,
 * which runs the lines as RouterOS does.
 */
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import {
  RouterApiOptionsError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "../../../src/routeros/api/errors.js";
import { consoleLine, parseConsoleReply, RouterSshClient } from "../../../src/routeros/api/ssh-client.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";

const MARKER = "rj0123456789abcdef";

async function answer(router: SimulatedRouter, words: Parameters<typeof consoleLine>[0]) {
  const outcome = await router.runScript(consoleLine(words, MARKER));
  const output = outcome.ok ? outcome.output : `${outcome.output}\n${outcome.error}`;
  return parseConsoleReply(words.command, output, MARKER);
}

describe("the SSH client's console lines", () => {
  it("reads a print's named properties per item, and an add's id as ret", async () => {
    const router = new SimulatedRouter({ name: "lines" });
    const added = await answer(router, {
      command: "/ip/address/add",
      attributes: { address: "10.5.0.1/24", interface: "ether2", comment: "a=b\nc" },
    });
    expect(added.done.ret).toMatch(/^\*/);
    const printed = await answer(router, {
      command: "/ip/address/print",
      attributes: { ".proplist": ".id,address,comment" },
      queries: ["?interface=ether2"],
    });
    expect(printed.records).toEqual([{ ".id": added.done.ret, address: "10.5.0.1/24", comment: "a=b\nc" }]);
    const none = await answer(router, {
      command: "/ip/address/print",
      proplist: ["address"],
      queries: ["?interface=ether9"],
    });
    expect(none).toMatchObject({ records: [], empty: true });
  });

  it("the router's refusal, at run time or as a line it cannot parse, is a trap with its text", async () => {
    const router = new SimulatedRouter({ name: "lines" });
    const refused = answer(router, {
      command: "/ip/address/add",
      attributes: { address: "nonsense", interface: "ether1" },
    });
    await expect(refused).rejects.toThrow(RouterApiTrapError);
    await expect(refused).rejects.toThrow(/invalid value for argument address/);
    // Output without the end marker is never read as an answer.
    expect(() => parseConsoleReply("/x", "syntax error (line 1 column 3)\r\n", MARKER)).toThrow(
      /syntax error \(line 1 column 3\)/,
    );
    expect(() => parseConsoleReply("/x", "", MARKER)).toThrow(/the router answered nothing/);
  });

  it("refuses what the console cannot say, naming it, before anything is sent", () => {
    expect(() => consoleLine({ command: "/interface/print" }, MARKER)).toThrow(RouterApiOptionsError);
    expect(() =>
      consoleLine({ command: "/interface/print", proplist: ["name"], queries: ["?#|"] }, MARKER),
    ).toThrow('/interface/print: over SSH a query is ?name=value (got "?#|")');
    expect(() => consoleLine({ command: "/ip/address/add; /system/reboot" }, MARKER)).toThrow(
      /is not a command path/,
    );
    expect(() => consoleLine({ command: "/ip/address/add", attributes: { "a b": "1" } }, MARKER)).toThrow(
      /a b is not a property name/,
    );
  });
});

describe("the SSH client's connect", () => {
  it("a port that takes the connection and never says SSH is a timeout, and nothing is left to end the process", async () => {
    // GIVEN a listener that accepts and stays silent (a black hole behind a proxy, a hung service)
    const held: Socket[] = [];
    const server = createServer((socket) => {
      held.push(socket);
      socket.resume();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as { port: number };
    try {
      // WHEN the client gives up on the handshake
      await expect(
        RouterSshClient.connect({
          host: "127.0.0.1",
          port,
          user: "admin",
          password: "x",
          hostKey: `SHA256:${"A".repeat(43)}`,
          connectTimeoutMs: 300,
        }),
      ).rejects.toThrow(RouterApiTimeoutError);
      // THEN its socket is closed: ssh2 reports "Connection lost before handshake" after the timeout, which an
      // unheard error event would have thrown out of the process (CI, Node 22)
      const socket = held[0];
      if (socket && !socket.closed) await once(socket, "close");
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      for (const socket of held) socket.destroy();
      server.close();
    }
  });
});
