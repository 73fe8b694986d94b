import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  RouterApiConnectionError,
  RouterApiLoginError,
  RouterApiTimeoutError,
  RouterApiTrapError,
} from "../../../src/routeros/api/errors.js";
import { RouterRestClient, type RouterRestClientOptions } from "../../../src/routeros/api/rest-client.js";
import { certificateFingerprint } from "../../../src/routeros/api/transport.js";
import { apiFrontEnd } from "../../../src/routeros/simulator/adapters/api-front-end.js";
import { selfSignedDeviceCertificate } from "../../../src/routeros/simulator/adapters/device-certificate.js";
import { restFrontEnd } from "../../../src/routeros/simulator/adapters/rest-front-end.js";
import { type RestServer, startRestServer } from "../../../src/routeros/simulator/adapters/rest-server.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";

const PASSWORD = "rest-client-secret";
let server: RestServer;
let cert: string;
/** Every login the device was asked to check: none may come over a connection whose certificate is wrong. */
const logins: string[] = [];

beforeAll(async () => {
  const tls = await selfSignedDeviceCertificate();
  cert = tls.cert;
  const router = new SimulatedRouter({ name: "rest-client", defaults: false });
  server = await startRestServer({
    tls,
    authenticate: (user, password) => {
      logins.push(user);
      return user === "ops" && password === PASSWORD;
    },
    handler: restFrontEnd(apiFrontEnd(router, { pingIntervalMs: 1 })),
  });
});
afterAll(() => server.close());

const options = (extra: Partial<RouterRestClientOptions> = {}): RouterRestClientOptions => ({
  host: "127.0.0.1",
  port: server.port,
  user: "ops",
  password: PASSWORD,
  tls: { fingerprint: certificateFingerprint(cert) },
  ...extra,
});

describe("RouterRestClient", () => {
  it("runs API-shaped commands over REST: records, !done's values, queries and .proplist", async () => {
    const client = await RouterRestClient.connect(options());
    try {
      const added = await client.command({
        command: "/ip/address/add",
        attributes: { address: "10.7.0.1/24", interface: "ether2" },
      });
      expect(added).toEqual({ records: [], done: { ret: "*1" }, empty: false });
      const printed = await client.command({
        command: "/ip/address/print",
        proplist: ["address"],
        queries: ["?interface=ether2"],
      });
      expect(printed.records).toEqual([{ address: "10.7.0.1/24" }]);
      const proplistAsAttribute = await client.command({
        command: "/ip/address/print",
        attributes: { ".proplist": ".id,interface" },
      });
      expect(proplistAsAttribute.records).toEqual([{ ".id": "*1", interface: "ether2" }]);
      const none = await client.command({ command: "/ip/address/print", queries: ["?interface=ether9"] });
      expect(none).toEqual({ records: [], done: {}, empty: true });
      const executed = await client.command({
        command: "/execute",
        attributes: { script: ":put ok", "as-string": "" },
      });
      expect(executed.done).toEqual({ ret: "ok" });
    } finally {
      client.close();
    }
  });

  it("keeps its connection alive: commands one after another share one TLS connection", async () => {
    const before = server.connections;
    const client = await RouterRestClient.connect(options());
    try {
      for (let i = 0; i < 5; i++) await client.command({ command: "/system/identity/print" });
    } finally {
      client.close();
    }
    expect(server.connections - before).toBe(1);
  });

  it("raises the router's refusal as RouterApiTrapError with its text", async () => {
    const client = await RouterRestClient.connect(options());
    try {
      const refused = await client
        .command({ command: "/ip/address/add", attributes: { address: "10.8.0.1/24", interface: "nope" } })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RouterApiTrapError);
      expect((refused as RouterApiTrapError).routerMessage).toBe(
        "input does not match any value of interface",
      );
    } finally {
      client.close();
    }
  });

  it("refuses a wrong password with RouterApiLoginError, without the password in the message", async () => {
    const error = await RouterRestClient.connect(options({ password: "wrong-password-x" })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RouterApiLoginError);
    expect((error as Error).message).not.toContain("wrong-password-x");
  });

  it("refuses a certificate other than the pinned one before sending the credentials", async () => {
    const other = await selfSignedDeviceCertificate();
    const before = logins.length;
    const error = await RouterRestClient.connect(
      options({ tls: { fingerprint: certificateFingerprint(other.cert) } }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RouterApiConnectionError);
    expect((error as Error).message).toMatch(/is not the pinned/);
    expect(logins.length).toBe(before);
  });

  it("trusts a CA (the device's own certificate) instead of a pin", async () => {
    const client = await RouterRestClient.connect(options({ tls: { ca: cert, servername: "localhost" } }));
    client.close();
  });

  it("stops a command at its deadline with RouterApiTimeoutError", async () => {
    const client = await RouterRestClient.connect(options());
    try {
      const error = await client
        .command({ command: "/tool/ping", attributes: { address: "192.0.2.1" } }, { timeoutMs: 100 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RouterApiTimeoutError);
      // The connection pool is still usable after a request was cut off.
      expect((await client.command({ command: "/system/identity/print" })).records).toEqual([
        { name: "rest-client" },
      ]);
    } finally {
      client.close();
    }
  });

  it("reports a router that does not answer as RouterApiConnectionError", async () => {
    const closed = await startRestServer({
      tls: await selfSignedDeviceCertificate(),
      authenticate: () => true,
      handler: async () => ({ status: 200, body: [] }),
    });
    const port = closed.port;
    await closed.close();
    const error = await RouterRestClient.connect(options({ port })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RouterApiConnectionError);
  });
});
