import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  LOGIN_REFUSED,
  type RouterApiServer,
  startRouterApiServer,
} from "../../../src/routeros/api/server.js";
import { encodeLength, encodeSentence, SentenceDecoder } from "../../../src/routeros/api/words.js";

const USER = "admin";
const PASSWORD = "s3cret";

/** A raw connection to the server: what it sent back, sentence by sentence, and when it closed. */
async function rawSession(server: RouterApiServer, localAddress = "127.0.0.1") {
  const socket: Socket = connect({ host: server.host, port: server.port, localAddress });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const decoder = new SentenceDecoder();
  const sentences: string[][] = [];
  const waiting: (() => void)[] = [];
  socket.on("data", (chunk: Buffer) => {
    for (const words of decoder.push(chunk)) sentences.push(words.map((word) => word.toString()));
    for (const wake of waiting.splice(0)) wake();
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  closed.then(() => {
    for (const wake of waiting.splice(0)) wake();
  });
  /** The sentences up to the next `!done` (or the connection's end). */
  const reply = async (): Promise<string[][]> => {
    for (;;) {
      const done = sentences.findIndex((words) => words[0] === "!done" || words[0] === "!fatal");
      if (done >= 0) return sentences.splice(0, done + 1);
      if (socket.destroyed) return sentences.splice(0);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const login = async (password: string) => {
    socket.write(encodeSentence(["/login", `=name=${USER}`, `=password=${password}`]));
    return reply();
  };
  return { socket, sentences, reply, login, closed };
}

describe("the RouterOS API server's limits (router simulate, test devices)", () => {
  const servers: RouterApiServer[] = [];
  const start = async (options: Partial<Parameters<typeof startRouterApiServer>[0]> = {}) => {
    const server = await startRouterApiServer({
      authenticate: (user, password) => user === USER && password === PASSWORD,
      handler: () => ({ done: {} }),
      ...options,
    });
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it("drops a connection whose sentence stops half-way, with !fatal naming the limit", async () => {
    const server = await start({ sentenceTimeoutMs: 200 });
    const session = await rawSession(server);
    expect(await session.login(PASSWORD)).toEqual([["!done"]]);
    // A word of 10 bytes announced, 3 sent: then nothing.
    session.socket.write(Buffer.concat([encodeLength(10), Buffer.from("/sy")]));
    await session.closed;
    expect(session.sentences).toEqual([["!fatal", "a sentence was not completed within 200ms"]]);
  });

  it("keeps a logged-in connection that sends whole sentences, however slowly", async () => {
    const server = await start({ sentenceTimeoutMs: 200, loginTimeoutMs: 200 });
    const session = await rawSession(server);
    expect(await session.login(PASSWORD)).toEqual([["!done"]]);
    // A sentence in two pieces: its deadline starts with the first and ends with the second.
    const sentence = encodeSentence(["/system/identity/print"]);
    session.socket.write(sentence.subarray(0, 5));
    session.socket.write(sentence.subarray(5));
    expect(await session.reply()).toEqual([["!done"]]);
    // A connection opened after all that, never logging in, is dropped at its deadline: by then the first's
    // login and sentence deadlines have passed too, with it idle between sentences. It is still served.
    const witness = await rawSession(server);
    await witness.closed;
    session.socket.write(encodeSentence(["/system/identity/print"]));
    expect(await session.reply()).toEqual([["!done"]]);
    session.socket.destroy();
  });

  it("drops a connection that does not log in", async () => {
    const server = await start({ loginTimeoutMs: 200 });
    const session = await rawSession(server);
    await session.closed;
    expect(session.sentences).toEqual([["!fatal", "not logged in within 200ms"]]);
  });

  it("blocks an address after too many failed logins, the right password too, and no other address", async () => {
    const logins: string[] = [];
    const server = await start({
      loginFailures: { count: 3, windowMs: 60_000 },
      authenticate: (user, password) => {
        logins.push(password);
        return user === USER && password === PASSWORD;
      },
    });
    const guesser = await rawSession(server);
    for (let guess = 1; guess <= 4; guess++) {
      expect(await guesser.login(`guess-${guess}`)).toEqual([
        ["!trap", `=message=${LOGIN_REFUSED}`],
        ["!done"],
      ]);
    }
    // Past the limit the password is not looked at, and the connection is closed.
    const blocked = await guesser.login(PASSWORD);
    expect(blocked[0]?.[0]).toBe("!trap");
    expect(blocked[0]?.[1]).toMatch(
      /^=message=too many failed logins from this address \(more than 3 per 1m\); retry in [1-9]\d* s$/,
    );
    await guesser.closed;
    const again = await rawSession(server);
    expect((await again.login(PASSWORD))[0]?.[1]).toMatch(/too many failed logins/);
    expect(logins).toEqual(["guess-1", "guess-2", "guess-3", "guess-4"]);
    // Another address logs in.
    const other = await rawSession(server, "127.0.0.2");
    expect(await other.login(PASSWORD)).toEqual([["!done"]]);
    other.socket.destroy();
  });
});
