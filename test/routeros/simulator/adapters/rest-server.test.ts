import { request as httpsRequest } from "node:https";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFrontEnd } from "../../../../src/routeros/simulator/adapters/api-front-end.js";
import { constantTimeEqual } from "../../../../src/routeros/simulator/adapters/credentials.js";
import { selfSignedDeviceCertificate } from "../../../../src/routeros/simulator/adapters/device-certificate.js";
import { restFrontEnd } from "../../../../src/routeros/simulator/adapters/rest-front-end.js";
import {
  basicCredentials,
  type RestServer,
  startRestServer,
} from "../../../../src/routeros/simulator/adapters/rest-server.js";
import { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";

const PASSWORD = "s3cret:with-colon";
let server: RestServer;
let cert: string;

beforeAll(async () => {
  const tls = await selfSignedDeviceCertificate();
  cert = tls.cert;
  const router = new SimulatedRouter({ name: "rest-1", defaults: false });
  server = await startRestServer({
    tls,
    authenticate: (user, password) => user === "ops" && constantTimeEqual(password, PASSWORD),
    handler: restFrontEnd(apiFrontEnd(router, { pingIntervalMs: 1 })),
    // Short, so that the deadline's answer is seen in a unit test; RouterOS's is 60 s.
    deadlineMs: 200,
    maxBodyBytes: 4096,
  });
});
afterAll(() => server.close());

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

function call(
  method: string,
  path: string,
  options: { auth?: string; body?: string; type?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.auth !== undefined)
      headers.authorization = `Basic ${Buffer.from(options.auth).toString("base64")}`;
    if (options.body !== undefined) headers["content-type"] = options.type ?? "application/json";
    const req = httpsRequest(
      { host: server.host, port: server.port, method, path, ca: cert, servername: "localhost", headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const ops = `ops:${PASSWORD}`;

describe("REST server", () => {
  it("serves /rest over HTTPS with basic auth, JSON in and out", async () => {
    const identity = await call("GET", "/rest/system/identity", { auth: ops });
    expect(identity).toMatchObject({ status: 200, text: '{"name":"rest-1"}' });
    expect(identity.headers["content-type"]).toBe("application/json");
    const added = await call("PUT", "/rest/ip/address", {
      auth: ops,
      body: JSON.stringify({ address: "10.1.0.1/24", interface: "ether1" }),
    });
    expect(added.status).toBe(200);
    expect(JSON.parse(added.text)).toMatchObject({ ".id": "*1", address: "10.1.0.1/24" });
    // `*` escaped in the path, as some clients send it.
    expect(await call("DELETE", "/rest/ip/address/%2A1", { auth: ops })).toMatchObject({
      status: 204,
      text: "",
    });
  });

  it("answers 401 with RouterOS's body for a wrong password, an unknown user or no credentials", async () => {
    for (const auth of [`ops:wrong`, `nobody:${PASSWORD}`, undefined]) {
      const answer = await call("GET", "/rest/system/identity", auth === undefined ? {} : { auth });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text)).toEqual({ error: 401, message: "Unauthorized" });
      expect(answer.headers["www-authenticate"]).toMatch(/^Basic realm=/);
    }
  });

  it("refuses a body that is not JSON (415), malformed JSON (400), one over the limit (413)", async () => {
    const form = await call("POST", "/rest/system/identity/set", {
      auth: ops,
      body: "name=x",
      type: "text/plain",
    });
    expect(form.status).toBe(415);
    expect(JSON.parse(form.text)).toEqual({ error: 415, message: "Unsupported Media Type" });
    const broken = await call("POST", "/rest/system/identity/set", { auth: ops, body: '{"name":' });
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).detail).toMatch(/^the body is not JSON/);
    const large = await call("POST", "/rest/system/identity/set", {
      auth: ops,
      body: JSON.stringify({ name: "x".repeat(5000) }),
    }).catch((error: NodeJS.ErrnoException) => ({ status: 0, text: error.code ?? "" }));
    // The server answers 413 and closes; a client still sending may see the reset first.
    expect([413, 0]).toContain(large.status);
  });

  it("answers 404 outside /rest (a router serves WebFig there)", async () => {
    expect(await call("GET", "/webfig/", { auth: ops })).toMatchObject({ status: 404 });
  });

  it("stops a command still running at the deadline and answers Session closed", async () => {
    const endless = await call("POST", "/rest/tool/ping", { auth: ops, body: '{"address":"192.0.2.1"}' });
    expect(endless.status).toBe(400);
    expect(JSON.parse(endless.text)).toEqual({
      detail: "Session closed",
      error: 400,
      message: "Bad Request",
    });
  });

  it("closes a plain HTTP connection to the HTTPS port without an answer", async () => {
    const socket = connect({ host: server.host, port: server.port });
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => {});
    socket.write("GET /rest/system/identity HTTP/1.1\r\nHost: router\r\n\r\n");
    await new Promise((resolve) => socket.once("close", resolve));
    expect(Buffer.concat(received).toString("latin1")).not.toContain("HTTP/");
  });
});

describe("basic credentials", () => {
  it("splits at the first colon, so a password may hold colons; malformed headers give none", () => {
    const header = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;
    expect(basicCredentials(header("ops:a:b"))).toEqual({ user: "ops", password: "a:b" });
    expect(basicCredentials(header("ops:"))).toEqual({ user: "ops", password: "" });
    expect(basicCredentials(header("no-colon"))).toBeUndefined();
    expect(basicCredentials("Bearer abc")).toBeUndefined();
    expect(basicCredentials(undefined)).toBeUndefined();
  });
});
