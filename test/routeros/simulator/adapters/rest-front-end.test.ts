import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiFrontEnd } from "../../../../src/routeros/simulator/adapters/api-front-end.js";
import {
  type RestRequest,
  type RestResponse,
  restFrontEnd,
} from "../../../../src/routeros/simulator/adapters/rest-front-end.js";
import { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";

/** A router and its REST face, called as the HTTPS server calls it. */
function restRouter() {
  const router = new SimulatedRouter({ name: "edge-1", defaults: false });
  const handler = restFrontEnd(apiFrontEnd(router, { pingIntervalMs: 1 }));
  const call = (
    method: string,
    path: string,
    options: { body?: unknown; query?: [string, string][]; signal?: AbortSignal } = {},
  ): Promise<RestResponse> => {
    const request: RestRequest = {
      method,
      path,
      query: options.query ?? [],
      body: options.body,
      user: "admin",
      signal: options.signal ?? new AbortController().signal,
    };
    return handler(request);
  };
  return { router, call };
}

const badRequest = (detail: string) => ({
  status: 400,
  body: { detail, error: 400, message: "Bad Request" },
});
const notFound = { status: 404, body: { error: 404, message: "Not Found" } };

describe("REST front end: resources", () => {
  it("adds with PUT and answers the new item as print shows it, keys in order, every value a string", async () => {
    const { call } = restRouter();
    const added = await call("PUT", "/ip/address", { body: { address: "10.0.0.1/24", interface: "ether1" } });
    expect(added).toEqual({
      status: 200,
      body: {
        ".id": "*1",
        "actual-interface": "ether1",
        address: "10.0.0.1/24",
        disabled: "false",
        dynamic: "false",
        interface: "ether1",
        invalid: "false",
        network: "10.0.0.0",
      },
    });
    expect(Object.keys(added.body as object)).toEqual(Object.keys(added.body as object).sort());
  });

  it("prints with GET: .proplist selects, query parameters filter by equality (yes matches true)", async () => {
    const { call } = restRouter();
    await call("PUT", "/ip/address", { body: { address: "10.0.0.1/24", interface: "ether1" } });
    await call("PUT", "/ip/address", {
      body: { address: "10.0.2.1/24", interface: "ether2", disabled: "yes" },
    });
    expect(await call("GET", "/ip/address", { query: [[".proplist", "address,interface"]] })).toEqual({
      status: 200,
      body: [
        { address: "10.0.0.1/24", interface: "ether1" },
        { address: "10.0.2.1/24", interface: "ether2" },
      ],
    });
    expect(
      await call("GET", "/ip/address", {
        query: [
          ["disabled", "yes"],
          [".proplist", ".id,address"],
        ],
      }),
    ).toEqual({ status: 200, body: [{ ".id": "*2", address: "10.0.2.1/24" }] });
    // terraform-provider-routeros reads one item as a filtered list: `?.id=*39`, an empty list when it is gone.
    expect(
      await call("GET", "/ip/address", {
        query: [
          [".id", "*2"],
          [".proplist", "address"],
        ],
      }),
    ).toEqual({
      status: 200,
      body: [{ address: "10.0.2.1/24" }],
    });
    expect(await call("GET", "/ip/address", { query: [["interface", "ether9"]] })).toEqual({
      status: 200,
      body: [],
    });
  });

  it("answers one item by .id or by name, and 404 for one that is not there", async () => {
    const { call } = restRouter();
    await call("PUT", "/ip/address", { body: { address: "10.0.0.1/24", interface: "ether1" } });
    expect(await call("GET", "/ip/address/*1", { query: [[".proplist", "address"]] })).toEqual({
      status: 200,
      body: { address: "10.0.0.1/24" },
    });
    expect(await call("GET", "/interface/ether2", { query: [[".proplist", "name,type"]] })).toEqual({
      status: 200,
      body: { name: "ether2", type: "ether" },
    });
    expect(await call("GET", "/ip/address/*99")).toEqual(notFound);
    expect(await call("GET", "/interface/ether99")).toEqual(notFound);
  });

  it("sets with PATCH and answers the item as it is now; 404 for a missing item, 400 with the router's text for a refused value", async () => {
    const { call } = restRouter();
    await call("PUT", "/ip/address", { body: { address: "10.0.0.1/24", interface: "ether1" } });
    const patched = await call("PATCH", "/ip/address/*1", { body: { comment: "uplink", disabled: true } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ ".id": "*1", comment: "uplink", disabled: "true" });
    expect(await call("PATCH", "/ip/address/*7", { body: { comment: "x" } })).toEqual(notFound);
    expect(await call("PATCH", "/ip/address/*1", { body: { interface: "ether99" } })).toEqual(
      badRequest("input does not match any value of interface"),
    );
  });

  it("removes with DELETE (204, no body); a second DELETE of the same item is 404; a built-in item is refused", async () => {
    const { call } = restRouter();
    await call("PUT", "/ip/address", { body: { address: "10.0.0.1/24", interface: "ether1" } });
    expect(await call("DELETE", "/ip/address/*1")).toEqual({ status: 204 });
    expect(await call("DELETE", "/ip/address/*1")).toEqual(notFound);
    expect(await call("GET", "/ip/address")).toEqual({ status: 200, body: [] });
    expect(await call("DELETE", "/interface/ether1")).toEqual(
      badRequest("failure: can not remove built-in item"),
    );
  });

  it("keeps an item's .id after others are removed, and never gives it to a new item", async () => {
    const { call } = restRouter();
    for (const n of [1, 2, 3])
      await call("PUT", "/ip/address", { body: { address: `10.0.${n}.1/24`, interface: "ether1" } });
    await call("DELETE", "/ip/address/*1");
    const added = await call("PUT", "/ip/address", { body: { address: "10.0.9.1/24", interface: "ether2" } });
    expect((added.body as Record<string, string>)[".id"]).toBe("*4");
    expect(await call("GET", "/ip/address/*3", { query: [[".proplist", "address"]] })).toEqual({
      status: 200,
      body: { address: "10.0.3.1/24" },
    });
  });

  it("answers a settings menu as one object, and PATCH on the menu sets it", async () => {
    const { call } = restRouter();
    expect(await call("GET", "/system/identity")).toEqual({ status: 200, body: { name: "edge-1" } });
    expect(await call("PATCH", "/system/identity", { body: { name: "core-1" } })).toEqual({
      status: 200,
      body: { name: "core-1" },
    });
    const dns = await call("PATCH", "/ip/dns", { body: { servers: "192.0.2.53" } });
    expect(dns.body).toMatchObject({ servers: "192.0.2.53" });
  });

  it("refuses a verb the menu lacks with 406, an unknown path with 400 naming the word, another method with 400", async () => {
    const { call } = restRouter();
    expect(await call("PUT", "/system/identity", { body: { name: "x" } })).toEqual({
      status: 406,
      body: { detail: "no such command or directory (add)", error: 406, message: "Not Acceptable" },
    });
    expect(await call("GET", "/ip/nonexistent")).toEqual(
      badRequest("no such command or directory (nonexistent)"),
    );
    expect(await call("GET", "/ip//address")).toMatchObject({ status: 400 });
    expect(await call("OPTIONS", "/ip/address")).toMatchObject({ status: 400 });
  });

  it("refuses bodies that are not objects and values that are not text, naming the field", async () => {
    const { call } = restRouter();
    expect(await call("PUT", "/ip/address", { body: ["10.0.0.1/24"] })).toEqual(
      badRequest("the body must be a JSON object"),
    );
    expect(await call("PUT", "/ip/address", { body: { address: { ip: "10.0.0.1" } } })).toEqual(
      badRequest("value of address must be a string, number or boolean"),
    );
    expect(await call("POST", "/ip/address/print", { body: { ".query": [1] } })).toEqual(
      badRequest(".query must be a string or a list of strings"),
    );
  });
});

describe("REST front end: commands with POST", () => {
  it("answers print as a list, with .proplist and .query (the API's query words without ?)", async () => {
    const { call } = restRouter();
    await call("PUT", "/ip/address", { body: { address: "10.0.0.1/24", interface: "ether1" } });
    await call("PUT", "/ip/address", { body: { address: "10.0.2.1/24", interface: "ether2" } });
    await call("PUT", "/ip/address", { body: { address: "10.0.3.1/24", interface: "ether3" } });
    expect(
      await call("POST", "/ip/address/print", {
        body: { ".proplist": [".id", "address"], ".query": ["interface=ether1", "interface=ether3", "#|"] },
      }),
    ).toEqual({
      status: 200,
      body: [
        { ".id": "*1", address: "10.0.0.1/24" },
        { ".id": "*3", address: "10.0.3.1/24" },
      ],
    });
    expect(
      await call("POST", "/ip/address/print", { body: { ".proplist": "address", ".query": ["#bad"] } }),
    ).toEqual(badRequest('bad query word "?#bad"'));
    expect(await call("POST", "/system/identity/print")).toEqual({ status: 200, body: [{ name: "edge-1" }] });
  });

  it("answers !done's values as one object, nothing as [], and a refusal as 400 with the API's !trap text", async () => {
    const { call, router } = restRouter();
    expect(
      await call("POST", "/ip/address/add", { body: { address: "10.9.0.1/24", interface: "ether3" } }),
    ).toEqual({ status: 200, body: { ret: "*1" } });
    expect(
      await call("POST", "/ip/address/add", { body: { address: "10.9.0.1/24", interface: "ether3" } }),
    ).toEqual(badRequest("failure: already have such address"));
    await call("POST", "/system/script/add", { body: { name: "hello", source: ':global ranByRest "ran"' } });
    expect(await call("POST", "/system/script/run", { body: { ".id": "hello" } })).toEqual({
      status: 200,
      body: [],
    });
    expect(await router.runSource(":global ranByRest; :put $ranByRest")).toEqual(["ran"]);
    expect(await call("POST", "/ip/nothing/print")).toEqual(
      badRequest("no such command or directory (nothing)"),
    );
  });

  it("runs /execute: as-string answers the output, and a failing script's text as output (RouterOS answers 200)", async () => {
    const { call } = restRouter();
    expect(await call("POST", "/execute", { body: { script: ":put 42", "as-string": "" } })).toEqual({
      status: 200,
      body: { ret: "42" },
    });
    const failed = await call("POST", "/execute", { body: { script: ':error "boom"', "as-string": "" } });
    expect(failed.status).toBe(200);
    expect((failed.body as { ret: string }).ret).toMatch(/^boom/);
  });

  it("answers a streaming command's records as a list once it ends, and 'Session closed' when stopped before", async () => {
    const { call } = restRouter();
    const pinged = await call("POST", "/tool/ping", { body: { address: "192.0.2.1", count: 3 } });
    expect(pinged.status).toBe(200);
    expect((pinged.body as { seq: string }[]).map((record) => record.seq)).toEqual(["0", "1", "2"]);
    const deadline = new AbortController();
    const endless = call("POST", "/tool/ping", { body: { address: "192.0.2.1" }, signal: deadline.signal });
    deadline.abort(new Error("deadline"));
    expect(await endless).toEqual(badRequest("Session closed"));
  });

  it("maps any JSON body of text values to the same API attributes (property)", async () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
    await fc.assert(
      fc.asyncProperty(name, fc.string({ maxLength: 40 }), async (scriptName, comment) => {
        const { call } = restRouter();
        const added = await call("PUT", "/system/script", {
          body: { name: scriptName, comment, source: ":put 1" },
        });
        expect(added.status).toBe(200);
        const id = (added.body as Record<string, string>)[".id"] ?? "";
        expect(await call("GET", `/system/script/${id}`, { query: [[".proplist", "name,comment"]] })).toEqual(
          {
            status: 200,
            body: comment === "" ? { name: scriptName } : { comment, name: scriptName },
          },
        );
      }),
      { numRuns: 30 },
    );
  });
});
