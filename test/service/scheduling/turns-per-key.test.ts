/** Work that takes turns per key (src/service/scheduling/turns-per-key.ts): the job list of one router, one request at a time. */
import type { ServerResponse } from "node:http";
import { connect } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import serviceApp, { serverOptions } from "../../../src/service/app.js";
import { resolveConfig } from "../../../src/service/config.js";
import { Turns } from "../../../src/service/scheduling/turns-per-key.js";
import { applySeed } from "../../../src/service/seed.js";
import { waitFor, within } from "../../helpers/wait-for.js";
import { newBackend } from "../backend.js";
import { ROUTER_A, SEED, TOKEN_A } from "../harness.js";

describe("turns per key", () => {
  it("gives a key to one holder at a time, in the order they came, and another key at once", async () => {
    const turns = new Turns();
    const order: string[] = [];
    const first = await turns.take("router-a");
    const second = turns.take("router-a").then((end) => {
      order.push("second");
      return end;
    });
    const third = turns.take("router-a").then((end) => {
      order.push("third");
      return end;
    });
    // another key does not wait for router-a's holder
    const other = await turns.take("router-b");
    order.push("other");
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["other"]);
    first();
    const endSecond = await second;
    expect(order).toEqual(["other", "second"]);
    endSecond();
    (await third)();
    other();
    expect(order).toEqual(["other", "second", "third"]);
    expect(turns.size).toBe(0);
  });

  it("ends a turn once however often it is ended, and forgets a key nobody holds or waits for", async () => {
    const turns = new Turns();
    const end = await turns.take("router-a");
    const next = turns.take("router-a");
    end();
    end(); // a second end (the answer sent, then the socket closed) must not end the next holder's turn
    const endNext = await next;
    const after = turns.take("router-a");
    let came = false;
    void after.then(() => {
      came = true;
    });
    await new Promise((resolve) => setImmediate(resolve)); // every promise reaction queued so far has run
    expect(came).toBe(false);
    endNext();
    (await after)();
    expect(turns.size).toBe(0);
  });
});

describe("the job list's turns when a waiting client goes away", () => {
  const LIST = "/api/routers/:router_id/jobs";
  /**
   * Each list request as it reaches the route's preHandler: its response, and a promise that settles once the
   * route's preHandler has run up to its wait for the turn.
   */
  const arrivals: { readonly response: ServerResponse; readonly inLine: Promise<void> }[] = [];
  /** Set: the next list answer waits in onSend, so that its request holds the router's turn until released. */
  let hold: { readonly reached: () => void; readonly released: Promise<void> } | undefined;
  /** Lets a held answer go; called again after the test, so that a failed test leaves nothing held. */
  let release = () => {};
  let app: FastifyInstance;
  let port: number;
  const dispatcher = new Agent();

  beforeAll(async () => {
    // The service's own plugin in an app of the test's: hooks added before it reach its routes, so the test sees
    // a request arrive at the turn and can hold an answer at the moment it is sent, without timing either.
    app = Fastify(serverOptions());
    app.addHook("preHandler", async (req, reply) => {
      // A root hook runs just before the route's own preHandler, which takes its place in line for the turn
      // and listens for the client leaving without waiting on any I/O: Fastify calls it as this hook's promise
      // settles. By the next turn of the event loop it is therefore waiting (an ordering fact, not a duration).
      if (req.routeOptions.url === LIST)
        arrivals.push({ response: reply.raw, inLine: new Promise((resolve) => setImmediate(resolve)) });
    });
    app.addHook("onSend", async (req, _reply, payload) => {
      const held = req.routeOptions.url === LIST ? hold : undefined;
      hold = undefined;
      if (held) {
        held.reached();
        await held.released;
      }
      return payload;
    });
    await app.register(serviceApp, {
      config: resolveConfig({ database: "memory://" }),
      backend: newBackend(),
    });
    await app.listen({ host: "127.0.0.1", port: 0 });
    await applySeed(app.db, SEED as never);
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    release();
    // A turn that was never ended (the failure this test looks for) holds its request open for good.
    app?.server.closeAllConnections();
    await app?.close();
    await dispatcher.destroy();
  });

  const list = () =>
    request(`http://127.0.0.1:${port}/api/routers/${ROUTER_A}/jobs`, {
      dispatcher,
      headers: { authorization: `Bearer ${TOKEN_A}` },
    }).then(async (response) => ({ status: response.statusCode, body: await response.body.text() }));

  it("ends the turn of a list request whose client left while it waited: the router's next list is served", async () => {
    // GIVEN a list of router A holding the router's turn, its answer held as it is sent
    let reached!: () => void;
    const atAnswer = new Promise<void>((resolve) => {
      reached = resolve;
    });
    hold = {
      reached,
      released: new Promise<void>((resolve) => {
        release = resolve;
      }),
    };
    const first = list();
    await within(atAnswer, { what: "the first list to reach its answer", timeoutMs: 60_000 });
    // AND a second list of router A, waiting for the turn
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {}); // destroyed on purpose below
    socket.write(
      `GET /api/routers/${ROUTER_A}/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN_A}\r\n\r\n`,
    );
    const waiting = await waitFor(() => arrivals[1], {
      what: "the second list to reach the route's preHandler",
      timeoutMs: 60_000,
    });
    await waiting.inLine;
    // WHEN its client goes away while it waits, and then the first list's answer goes out
    socket.destroy();
    await waitFor(() => waiting.response.closed, {
      what: "the server to see the second client gone",
      timeoutMs: 60_000,
    });
    release();
    expect((await first).status).toBe(200);
    // THEN the router's next lists are served: the departed request's turn ended when it came
    for (const what of ["the list after the departed one", "the list after that"]) {
      const next = await within(list(), { what, timeoutMs: 60_000 });
      expect(next.status, next.body).toBe(200);
    }
    expect(arrivals).toHaveLength(4);
  });
});
