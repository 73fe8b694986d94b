import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  handshakeLine,
  MAGIC_COOKIE_KEY,
  MAGIC_COOKIE_VALUE,
  parseHandshakeLine,
  readHandshakeEnvironment,
} from "../../../../src/deploy/provider/protocol/handshake.js";
import { generatePinnedTls } from "../../../../src/platform/tls/certificates.js";

describe("go-plugin's handshake", () => {
  it("refuses to run without Terraform's magic cookie, saying what the program is", () => {
    expect(() => readHandshakeEnvironment({})).toThrow(/is a Terraform plugin: Terraform starts it/);
  });

  it("refuses a Terraform that offers no protocol 6", () => {
    expect(() =>
      readHandshakeEnvironment({ [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "4,5" }),
    ).toThrow(/speaks plugin protocol 6, and Terraform offered 4, 5/);
  });

  it("reads the client certificate for automatic mutual TLS", () => {
    const env = {
      [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
      PLUGIN_PROTOCOL_VERSIONS: "5,6",
      PLUGIN_CLIENT_CERT: " PEM \n",
    };
    expect(readHandshakeEnvironment(env).clientCert).toBe("PEM");
  });

  it("prints core version 1, protocol 6, the address and its certificate as unpadded base64 DER", async () => {
    const tls = await generatePinnedTls(["localhost"]);
    const line = handshakeLine("127.0.0.1:4242", tls.cert);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.split("|").slice(0, 5)).toEqual(["1", "6", "tcp", "127.0.0.1:4242", "grpc"]);
    expect(line.trim().split("|")[5]).not.toMatch(/=/);
    const parsed = parseHandshakeLine(line);
    const cert = new X509Certificate(parsed.certificateDer ?? Buffer.alloc(0));
    expect(cert.fingerprint256).toBe(new X509Certificate(tls.cert).fingerprint256);
    // Terraform pins it as its only root and checks the name localhost.
    expect(cert.ca).toBe(true);
    expect(cert.checkHost("localhost")).toBe("localhost");
    expect(cert.verify(cert.publicKey)).toBe(true);
  });
});
