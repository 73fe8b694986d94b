import { connect } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isForeignProtocol } from "../../../src/routeros/api/foreign-protocol.js";
import { type RouterApiServer, startRouterApiServer } from "../../../src/routeros/api/server.js";
import { encodeSentence } from "../../../src/routeros/api/words.js";

const HOUR = 3_600_000;

describe("another protocol at the API port", () => {
  let server: RouterApiServer;
  beforeAll(async () => {
    server = await startRouterApiServer({
      authenticate: () => true,
      handler: () => ({ done: {} }),
      // Deadlines far beyond the test's own: a close seen here is the server recognising the protocol.
      loginTimeoutMs: HOUR,
      sentenceTimeoutMs: HOUR,
    });
  });
  afterAll(() => server.close());

  /** Sends `bytes` as a fresh connection's first bytes; resolves with what came back once the server closed. */
  const firstBytes = (bytes: Buffer) =>
    new Promise<Buffer>((resolve, reject) => {
      const socket = connect({ host: server.host, port: server.port });
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(received)));
      socket.write(bytes);
    });

  it("closes an HTTP request (curl, a REST client at the wrong port) at once, answering nothing", async () => {
    const request = "GET /rest/system/identity HTTP/1.1\r\nHost: 127.0.0.1:8728\r\nAccept: */*\r\n\r\n";
    expect((await firstBytes(Buffer.from(request))).length).toBe(0);
  });

  it("closes a TLS ClientHello (an api-ssl client at the plain port) at once", async () => {
    // A TLS record header (handshake, TLS 1.0 record version) and the start of a ClientHello.
    const hello = Buffer.from([0x16, 0x03, 0x01, 0x00, 0xf1, 0x01, 0x00, 0x00, 0xed, 0x03, 0x03]);
    expect((await firstBytes(hello)).length).toBe(0);
  });
});

describe("isForeignProtocol", () => {
  it("never takes the start of an API sentence for another protocol (property)", () => {
    const word = fc.stringMatching(/^\/[a-z/-]{1,200}$/);
    const attribute = fc.string({ maxLength: 300 }).map((text) => `=comment=${text}`);
    fc.assert(
      fc.property(word, fc.array(attribute, { maxLength: 3 }), (head, attributes) => {
        expect(isForeignProtocol(encodeSentence([head, ...attributes]))).toBe(false);
      }),
    );
  });

  it("knows HTTP's methods and a TLS record header, and nothing shorter", () => {
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
      expect(isForeignProtocol(Buffer.from(`${method} / HTTP/1.1\r\n`))).toBe(true);
    expect(isForeignProtocol(Buffer.from("GETX / HTTP/1.1"))).toBe(false);
    expect(isForeignProtocol(Buffer.from([0x16]))).toBe(false);
    expect(isForeignProtocol(Buffer.from([0x16, 0x03]))).toBe(true);
  });
});
