import { once } from "node:events";
import { createServer, type Server, connect as tcpConnect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { RouterApiClient, type RouterApiClientOptions } from "../../../src/routeros/api/client.js";
import {
  RouterApiConnectionError,
  RouterApiLoginError,
  RouterApiOptionsError,
  RouterApiProtocolError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "../../../src/routeros/api/errors.js";
import { parseSentence } from "../../../src/routeros/api/sentence.js";
import { encodeSentence, SentenceDecoder } from "../../../src/routeros/api/words.js";
import { selfSignedDeviceCertificate } from "../../../src/routeros/simulator/adapters/device-certificate.js";
import { PASSWORD, startDevice, type TestDevice, USER } from "./device.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function device(options: Parameters<typeof startDevice>[0] = { tls: true }): Promise<TestDevice> {
  const started = await startDevice(options);
  cleanups.push(() => started.server.close());
  return started;
}

async function connect(
  dev: TestDevice,
  extra: Partial<RouterApiClientOptions> = {},
): Promise<RouterApiClient> {
  const client = await RouterApiClient.connect({
    host: "127.0.0.1",
    port: dev.server.port,
    user: USER,
    password: PASSWORD,
    ...(dev.fingerprint ? { tls: { fingerprint: dev.fingerprint } } : { allowPlaintext: true }),
    ...extra,
  });
  cleanups.push(() => client.close());
  return client;
}

const aborted = (signal: AbortSignal) =>
  signal.aborted ? Promise.resolve() : once(signal, "abort").then(() => undefined);

function expectNoPassword(error: unknown): void {
  expect(String((error as Error).message)).not.toContain(PASSWORD);
}

describe("TLS: the router's certificate is verified before the password leaves", () => {
  it("logs in over a pinned fingerprint and reads the identity", async () => {
    const dev = await device();
    const client = await connect(dev);
    const reply = await client.command({ command: "/system/identity/print" });
    expect(reply).toEqual({ records: [{ name: "test-router" }], done: {}, empty: false });
  });

  it("accepts the certificate itself as ca, alone or with the fingerprint, and every fingerprint spelling", async () => {
    const dev = await device();
    const hex = (dev.fingerprint as string).replace("sha256:", "");
    for (const tls of [
      { ca: dev.cert },
      { ca: dev.cert, fingerprint: dev.fingerprint },
      { fingerprint: hex },
      { fingerprint: hex.replaceAll(":", "").toLowerCase() },
    ]) {
      const client = await connect(dev, { tls });
      expect((await client.command({ command: "/system/identity/print" })).records).toHaveLength(1);
    }
  });

  it("refuses a certificate with another fingerprint, or not signed by ca, without logging in", async () => {
    const dev = await device();
    const other = await selfSignedDeviceCertificate(["other.example"]);
    const wrongPin = `sha256:${"AB:".repeat(31)}AB`;
    for (const tls of [
      { fingerprint: wrongPin },
      { ca: other.cert },
      { ca: dev.cert, fingerprint: wrongPin },
    ]) {
      const error = await connect(dev, { tls }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RouterApiConnectionError);
      expectNoPassword(error);
    }
    await expect(connect(dev, { tls: { fingerprint: wrongPin } })).rejects.toThrow(
      /is not the pinned sha256:AB:AB/,
    );
    expect(dev.logins).toBe(0);
  });

  it("refuses plaintext unless allowed, and TLS without a way to verify", async () => {
    const dev = await device({});
    const base = { host: "127.0.0.1", port: dev.server.port, user: USER, password: PASSWORD };
    await expect(RouterApiClient.connect(base)).rejects.toThrow(
      /plaintext RouterOS API sends the password in clear/,
    );
    await expect(RouterApiClient.connect({ ...base, tls: {} })).rejects.toThrow(
      /tls needs ca or fingerprint/,
    );
    await expect(RouterApiClient.connect({ ...base, tls: { fingerprint: "sha256:12" } })).rejects.toThrow(
      RouterApiOptionsError,
    );
    await expect(RouterApiClient.connect({ ...base, allowPlaintext: true, maxInFlight: 0 })).rejects.toThrow(
      "maxInFlight must be a positive whole number (got 0)",
    );
    expect(dev.logins).toBe(0);
    const client = await connect(dev);
    expect((await client.command({ command: "/system/identity/print" })).records).toEqual([
      { name: "test-router" },
    ]);
  });

  it("reports a refused login with the router's text and never the password", async () => {
    const dev = await device();
    const error = await connect(dev, { password: `${PASSWORD}-wrong` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RouterApiLoginError);
    expect((error as Error).message).toMatch(
      /refused the login of user "admin": invalid user name or password \(6\)/,
    );
    expectNoPassword(error);
  });
});

describe("commands", () => {
  it("print with .proplist and queries, add answering =ret=, a trap with the router's text, !empty", async () => {
    const dev = await device();
    const client = await connect(dev);
    const added = await client.command({
      command: "/ip/address/add",
      attributes: { address: "10.0.0.1/24", interface: "ether1", comment: "a=b c" },
    });
    expect(added.done.ret).toMatch(/^\*[0-9A-F]+$/);
    const printed = await client.command({
      command: "/ip/address/print",
      proplist: [".id", "address", "comment"],
      queries: ["?interface=ether1"],
    });
    expect(printed.records).toEqual([{ ".id": added.done.ret, address: "10.0.0.1/24", comment: "a=b c" }]);
    const ethers = await client.command({
      command: "/interface/print",
      proplist: ["name"],
      queries: ["?name=ether1", "?name=ether2", "?#|"],
    });
    expect(ethers.records).toEqual([{ name: "ether1" }, { name: "ether2" }]);
    const trap = await client
      .command({ command: "/ip/address/add", attributes: { address: "10.0.0.1/24", interface: "ether1" } })
      .catch((e: unknown) => e);
    expect(trap).toBeInstanceOf(RouterApiTrapError);
    expect(trap).toMatchObject({
      routerMessage: "failure: already have such address",
      command: "/ip/address/add",
    });
    const none = await client.command({ command: "/ip/address/print", queries: ["?interface=ether9"] });
    expect(none).toEqual({ records: [], done: {}, empty: true });
    await expect(client.command({ command: "/ip/nothing/print" })).rejects.toMatchObject({
      routerMessage: "no such command or directory (nothing)",
      category: 0,
    });
  });

  it("/execute =as-string= answers the script's output as ret, and a failing script as a trap", async () => {
    const dev = await device();
    const client = await connect(dev);
    expect(
      (
        await client.command({
          command: "/execute",
          attributes: { script: ':put "hi there"', "as-string": "" },
        })
      ).done,
    ).toEqual({
      ret: "hi there",
    });
    await expect(
      client.command({
        command: "/execute",
        attributes: { script: "/ip address add address=x interface=ether1", "as-string": "" },
      }),
    ).rejects.toThrow(RouterApiTrapError);
  });

  it("/execute without as-string starts a background job that outlives the session", async () => {
    const dev = await device();
    const client = await connect(dev);
    const started = await client.command({
      command: "/execute",
      attributes: { script: ":delay 50ms; /system identity set name=after-close" },
    });
    expect(started.done.ret).toMatch(/^\*[0-9A-F]+$/);
    client.close();
    const again = await connect(dev);
    const identity = async () =>
      (await again.command({ command: "/system/identity/print" })).records[0]?.name;
    for (let name = await identity(); name !== "after-close"; name = await identity()) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await identity()).toBe("after-close");
  });

  it("runs several commands at once on one connection and cancels a streaming one with /cancel", async () => {
    const dev = await device();
    const client = await connect(dev);
    const controller = new AbortController();
    const seqs: string[] = [];
    let thirdRecord!: () => void;
    const three = new Promise<void>((resolve) => {
      thirdRecord = resolve;
    });
    const ping = client.command(
      { command: "/tool/ping", attributes: { address: "192.0.2.1" } },
      {
        signal: controller.signal,
        onRecord: (record) => {
          seqs.push(record.seq as string);
          if (seqs.length === 3) thirdRecord();
        },
      },
    );
    const prints = await Promise.all(
      Array.from({ length: 5 }, () => client.command({ command: "/interface/print", proplist: ["name"] })),
    );
    expect(prints.every((reply) => reply.records.length > 0)).toBe(true);
    await three;
    controller.abort(new Error("enough pings"));
    await expect(ping).rejects.toThrow("enough pings");
    const serverSide = dev.seen.find((command) => command.path === "/tool/ping");
    await aborted(serverSide?.signal as AbortSignal);
    expect(seqs.slice(0, 3)).toEqual(["0", "1", "2"]);
    expect((await client.command({ command: "/system/identity/print" })).records).toHaveLength(1);
    expect(client.inFlight).toBe(0);
  });

  it("times a command out, cancels it on the router, and keeps the connection", async () => {
    const dev = await device();
    const client = await connect(dev);
    const error = await client
      .command(
        { command: "/tool/ping", attributes: { address: "192.0.2.1" } },
        { timeoutMs: 30, onRecord: () => {} },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RouterApiTimeoutError);
    expect(error).toMatchObject({ phase: "command", message: "/tool/ping did not finish within 30 ms" });
    await aborted(dev.seen.find((command) => command.path === "/tool/ping")?.signal as AbortSignal);
    expect((await client.command({ command: "/system/identity/print" })).records).toHaveLength(1);
  });

  it("caps a reply's records and bytes, and the commands in flight", async () => {
    const dev = await device();
    const client = await connect(dev, { maxReplyRecords: 3, maxInFlight: 2 });
    await expect(
      client.command({ command: "/tool/ping", attributes: { address: "192.0.2.1", count: "10" } }),
    ).rejects.toThrow(
      new RouterApiProtocolError("/tool/ping: the reply exceeds the limit of 3 records (maxReplyRecords)"),
    );
    await aborted(dev.seen.find((command) => command.path === "/tool/ping")?.signal as AbortSignal);
    const small = await connect(dev, { maxReplyBytes: 100 });
    await expect(small.command({ command: "/interface/print" })).rejects.toThrow(
      /a sentence exceeds the limit of 100 bytes \(maxReplyBytes\)/,
    );
    const streams = [1, 2].map(() =>
      client.command({ command: "/tool/ping", attributes: { address: "192.0.2.1" } }, { onRecord: () => {} }),
    );
    await expect(client.command({ command: "/system/identity/print" })).rejects.toThrow(
      "/system/identity/print: 2 commands are already in flight (maxInFlight)",
    );
    client.close();
    for (const stream of streams) await expect(stream).rejects.toThrow(RouterApiConnectionError);
  });

  it("fails every command in flight when the router sends !fatal", async () => {
    const dev = await device();
    const client = await connect(dev);
    const ping = client.command(
      { command: "/tool/ping", attributes: { address: "192.0.2.1" } },
      { onRecord: () => {} },
    );
    await expect(client.command({ command: "/quit" })).rejects.toThrow(
      /ended the session: session terminated on request/,
    );
    await expect(ping).rejects.toThrow(RouterApiConnectionError);
    await expect(client.command({ command: "/system/identity/print" })).rejects.toThrow(/ended the session/);
  });
});

describe("timeouts before the first command", () => {
  async function silentServer(): Promise<Server> {
    const sockets: import("node:net").Socket[] = [];
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    });
    return server;
  }
  const portOf = (server: Server) => (server.address() as { port: number }).port;

  it("gives up the TLS handshake after connectTimeoutMs", async () => {
    const server = await silentServer();
    const error = await RouterApiClient.connect({
      host: "127.0.0.1",
      port: portOf(server),
      tls: { fingerprint: `sha256:${"00".repeat(32)}` },
      user: USER,
      password: PASSWORD,
      connectTimeoutMs: 50,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "RouterApiTimeoutError", phase: "connect" });
  });

  it("gives up /login after loginTimeoutMs", async () => {
    const server = await silentServer();
    const error = await RouterApiClient.connect({
      host: "127.0.0.1",
      port: portOf(server),
      allowPlaintext: true,
      user: USER,
      password: PASSWORD,
      loginTimeoutMs: 50,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "RouterApiTimeoutError", phase: "login" });
    expect((error as Error).message).toMatch(/did not answer \/login within 50 ms/);
    expectNoPassword(error);
  });
});

describe("the server's protocol guards", () => {
  async function rawExchange(port: number, bytes: Buffer): Promise<string[][]> {
    const socket = tcpConnect({ host: "127.0.0.1", port });
    const decoder = new SentenceDecoder();
    const sentences: string[][] = [];
    socket.on("data", (chunk: Buffer) => {
      for (const words of decoder.push(chunk)) sentences.push(words.map((w) => w.toString("utf8")));
    });
    socket.write(bytes);
    await once(socket, "close");
    return sentences;
  }

  it("answers bytes that break the protocol with !fatal and closes", async () => {
    const dev = await device({});
    expect(await rawExchange(dev.server.port, Buffer.from([0xf8]))).toEqual([
      ["!fatal", "reserved control byte 0xF8 where a word length was expected"],
    ]);
  });

  it("answers a command before /login with !fatal not logged in", async () => {
    const dev = await device({});
    const [reply] = await rawExchange(dev.server.port, encodeSentence(["/interface/print"]));
    expect(parseSentence((reply as string[]).map((w) => Buffer.from(w)))).toMatchObject({
      head: "!fatal",
      bare: ["not logged in"],
    });
    expect(dev.seen).toEqual([]);
  });
});
