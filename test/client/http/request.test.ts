import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BadResponseError, NetworkError, TimeoutError } from "../../../src/client/errors.js";
import { HttpOrigin, jsonOrUndefined } from "../../../src/client/http/request.js";
import { generateLocalTls } from "../../../src/platform/tls/certificates.js";

const TOKEN = "rj_test_secret_token_0123456789";

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** A real HTTPS server on loopback whose answer the test chooses; records what it was asked. */
async function startServer(answer: (seen: Seen, respond: (status: number, body: Buffer) => void) => void) {
  const tls = await generateLocalTls();
  const seen: Seen[] = [];
  const server = createHttpsServer({ cert: tls.cert, key: tls.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const one: Seen = {
        method: request.method,
        url: request.url,
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(one);
      answer(one, (status, body) => {
        response.writeHead(status);
        // Written in two parts, the body goes chunked, without a declared length.
        if (one.url === "/chunked") response.write(body.subarray(0, 1));
        response.end(one.url === "/chunked" ? body.subarray(1) : body);
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const stop = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { url, ca: tls.ca, seen, server, stop };
}

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

function origin(url: string, ca: string, extra: Partial<ConstructorParameters<typeof HttpOrigin>[0]> = {}) {
  const http = new HttpOrigin({ baseUrl: new URL(url), peerName: "the test peer", ca, ...extra });
  open.push(http);
  return http;
}

describe("HttpOrigin", () => {
  it("sends the bearer token, the path under the base URL and the body; returns any status as an answer", async () => {
    const peer = await startServer((_seen, respond) => respond(418, Buffer.from('{"a":1}')));
    open.push({ close: peer.stop });
    const http = origin(`${peer.url}/api/`, peer.ca, { bearerToken: TOKEN });
    const response = await http.send({ method: "POST", path: "/jobs?x=1", body: "hello" });
    expect(response.statusCode).toBe(418);
    expect(jsonOrUndefined(response.text)).toEqual({ a: 1 });
    expect(peer.seen).toEqual([
      { method: "POST", url: "/api/jobs?x=1", authorization: `Bearer ${TOKEN}`, body: "hello" },
    ]);
  });

  it("refuses an answer larger than maxBodyBytes with BadResponseError naming the limit, and stays usable", async () => {
    const peer = await startServer((seen, respond) =>
      respond(200, seen.url === "/small" ? Buffer.from("small") : Buffer.alloc(64 * 1024, 120)),
    );
    open.push({ close: peer.stop });
    const http = origin(peer.url, peer.ca, { maxBodyBytes: 1024 });
    const error = await http.send({ method: "GET", path: "/big" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadResponseError);
    expect((error as Error).message).toBe(
      `the answer of the test peer at ${peer.url} is larger than 1024 bytes`,
    );
    expect((await http.send({ method: "GET", path: "/small" })).text).toBe("small");
  });

  it("maps a refused connection to NetworkError that was not sent, without the token in the message", async () => {
    const peer = await startServer((_seen, respond) => respond(200, Buffer.alloc(0)));
    await peer.stop();
    const http = origin(peer.url, peer.ca, { bearerToken: TOKEN });
    const error = (await http.send({ method: "GET", path: "/" }).catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.requestSent).toBe(false);
    expect(error.message).toMatch(new RegExp(`^cannot reach the test peer at ${peer.url}: .*ECONNREFUSED`));
    expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(TOKEN);
  });

  it("maps an answer that does not come in time to TimeoutError (response, sent)", async () => {
    const peer = await startServer(() => undefined);
    open.push({ close: peer.stop });
    const http = origin(peer.url, peer.ca);
    const error = (await http
      .send({ method: "GET", path: "/", timeoutMs: 200 })
      .catch((e: unknown) => e)) as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: "response", requestSent: true });
  });

  it("throws the caller's abort as it came, not as a network failure", async () => {
    const peer = await startServer(() => undefined);
    open.push({ close: peer.stop });
    const http = origin(peer.url, peer.ca);
    const controller = new AbortController();
    const sent = http.send({ method: "GET", path: "/", signal: controller.signal }).catch((e: unknown) => e);
    await new Promise<void>((resolve) => peer.server.once("request", () => resolve()));
    controller.abort(new Error("the caller gave up"));
    expect(await sent).toMatchObject({ message: "the caller gave up" });
  });

  it("refuses a peer whose certificate the given CA did not sign (NetworkError, not sent)", async () => {
    const peer = await startServer((_seen, respond) => respond(200, Buffer.alloc(0)));
    open.push({ close: peer.stop });
    const other = await generateLocalTls();
    const error = (await origin(peer.url, other.ca)
      .send({ method: "GET", path: "/" })
      .catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.requestSent).toBe(false);
    expect(peer.seen).toEqual([]);
  });

  describe("names the fix when the cause says what is wrong", () => {
    const settings = { url: "ROUTERJOBS_URL or --url", ca: "ROUTERJOBS_CA_FILE or --ca-file" };

    it("a refused connection: is the peer running there, and where its URL is set", async () => {
      const peer = await startServer((_seen, respond) => respond(200, Buffer.alloc(0)));
      await peer.stop();
      const error = await origin(peer.url, peer.ca, { peerSettings: settings })
        .send({ method: "GET", path: "/" })
        .catch((e: unknown) => e);
      expect((error as Error).message).toMatch(
        /\(ECONNREFUSED\): is the test peer running there\? \(check ROUTERJOBS_URL or --url\)$/,
      );
    });

    it("a certificate no trusted CA signed: set the CA file", async () => {
      const peer = await startServer((_seen, respond) => respond(200, Buffer.alloc(0)));
      open.push({ close: peer.stop });
      const http = new HttpOrigin({
        baseUrl: new URL(peer.url),
        peerName: "the test peer",
        peerSettings: settings,
      });
      open.push(http);
      const error = await http.send({ method: "GET", path: "/" }).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(
        /: its certificate is not signed by a CA this process trusts: set ROUTERJOBS_CA_FILE or --ca-file to the PEM file of the CA that signed it$/,
      );
    });

    it("http:// for an HTTPS peer: use https://", async () => {
      const peer = await startServer((_seen, respond) => respond(200, Buffer.alloc(0)));
      open.push({ close: peer.stop });
      const error = await origin(peer.url.replace("https:", "http:"), peer.ca, { peerSettings: settings })
        .send({ method: "GET", path: "/" })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toMatch(
        /; if it serves HTTPS, use https:\/\/ in ROUTERJOBS_URL or --url$/,
      );
    });

    it("https:// for a plain HTTP peer: use http://", async () => {
      const server = createHttpServer((_request, response) => response.end("plain"));
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const error = await origin(url, "", { ca: undefined, peerSettings: settings })
        .send({ method: "GET", path: "/" })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ requestSent: false });
      expect((error as Error).message).toMatch(
        /: it does not speak TLS at that address: use http:\/\/ in ROUTERJOBS_URL or --url$/,
      );
    });
  });
});
