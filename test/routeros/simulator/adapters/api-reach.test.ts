/**
 * A simulated device's API holds its configuration against the connecting address (the reachability model,
 * src/routeros/simulator/reachability/peer.ts): once a change cuts a client's path, its open session is reset
 * at its next sentence and its new connections are reset; a change that keeps the path changes nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { RouterApiClient } from "../../../../src/routeros/api/client.js";
import { RouterApiConnectionError } from "../../../../src/routeros/api/errors.js";
import { startRouterApiServer } from "../../../../src/routeros/api/server.js";
import { apiFrontEnd } from "../../../../src/routeros/simulator/adapters/api-front-end.js";
import { peerGate } from "../../../../src/routeros/simulator/reachability/index.js";
import { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";

const USER = "admin";
const PASSWORD = "pw-reach-1234";
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function device() {
  const router = new SimulatedRouter({ name: "reach", defaults: false });
  const server = await startRouterApiServer({
    authenticate: (user, password) => user === USER && password === PASSWORD,
    handler: apiFrontEnd(router),
    refuse: peerGate(router, "api"),
  });
  closers.push(() => server.close());
  const connect = async () => {
    const client = await RouterApiClient.connect({
      host: "127.0.0.1",
      port: server.port,
      user: USER,
      password: PASSWORD,
      allowPlaintext: true,
      connectTimeoutMs: 2000,
      loginTimeoutMs: 2000,
    });
    closers.push(() => client.close());
    return client;
  };
  const identity = async (client: RouterApiClient) =>
    (await client.command({ command: "/system/identity/print" })).records[0]?.name;
  return { router, connect, identity };
}

describe("a simulated device's API and the reachability model", () => {
  it.each([
    [
      "a firewall input drop of the client's address",
      "/ip firewall filter add chain=input action=drop src-address=127.0.0.1",
    ],
    ["a raw drop of it", "/ip firewall raw add chain=prerouting action=drop src-address=127.0.0.0/8"],
    ["the API service moved to another port", "/ip service set api port=18728"],
    ["the API service disabled", "/ip service set api disabled=yes"],
    ["an address= restriction that leaves the client out", "/ip service set api address=10.0.0.0/8"],
  ])(
    "%s: the open session is reset at its next sentence, and a new connection is refused",
    async (_, change) => {
      const { router, connect, identity } = await device();
      // GIVEN a client that reaches the device
      const session = await connect();
      expect(await identity(session)).toBe("reach");
      // WHEN the device's configuration cuts its path
      expect((await router.runScript(change)).ok).toBe(true);
      // THEN the session's next sentence gets no answer but a reset, and so does a new connection
      await expect(identity(session)).rejects.toBeInstanceOf(RouterApiConnectionError);
      await expect(connect()).rejects.toBeInstanceOf(RouterApiConnectionError);
      // AND once the configuration lets it in again (as after a revert), it connects again
      await router.runScript(
        '/ip firewall filter remove [find]; /ip firewall raw remove [find]; /ip service set api port=8728 disabled=no address=""',
      );
      expect(await identity(await connect())).toBe("reach");
    },
  );

  it("a change that keeps the client's path changes nothing: a drop of another address or port", async () => {
    const { router, connect, identity } = await device();
    const session = await connect();
    await router.runScript(
      "/ip firewall filter add chain=input action=drop src-address=10.9.9.9; /ip firewall filter add chain=input action=drop protocol=tcp dst-port=23; /ip service set api address=127.0.0.0/8",
    );
    expect(await identity(session)).toBe("reach");
    expect(await identity(await connect())).toBe("reach");
  });
});
