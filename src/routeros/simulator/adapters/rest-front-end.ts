/**
 * The REST face of one simulated router, as RouterOS 7 serves `/rest` on www-ssl: each request becomes one or
 * two RouterOS API commands run by the API front end's handler (`api-front-end.ts`), so REST and the API answer
 * from the same router with the same texts. Verbs: `GET` is print (a settings menu answers its one object, an
 * item path `/ip/address/*1` or `/interface/ether1` answers that item, query parameters filter by equality,
 * `.proplist` selects), `PUT` is add (answers the new item), `PATCH` is set (answers the item as it is now),
 * `DELETE` is remove (204, no body), `POST /<menu>/<command>` runs any command with its arguments in a JSON
 * object (`.proplist`, `.query` as the API's query words without `?`): records answer as a list, `!done` with
 * values as one object, nothing as `[]`.
 *
 * Values are strings both ways, as RouterOS encodes them; a number or boolean sent is taken as its text.
 * Refusals answer `{"detail": <the router's text>, "error": 400, "message": "Bad Request"}`, a missing item
 * 404, a verb the menu lacks 406, and a command still running after the deadline (RouterOS: 60 s) 400
 * `Session closed`.
 */
import { RouterjobsError } from "../../../errors.js";
import { RouterApiProtocolError } from "../../api/errors.js";
import { type ApiCommand, ApiTrap, type CommandHandler, type HandlerResult } from "../../api/server.js";
import { catalog, menuAt, unknownPathWord } from "../catalog.js";

export interface RestRequest {
  readonly method: string;
  /** The path below `/rest`, decoded: `/ip/address/*1`. */
  readonly path: string;
  /** Query parameters in order (`?interface=ether1&.proplist=address`). */
  readonly query: readonly (readonly [string, string])[];
  /** The parsed JSON body, or undefined when there was none. */
  readonly body: unknown;
  readonly user: string;
  /** Aborts when the client goes away or the deadline passes. */
  readonly signal: AbortSignal;
}

export interface RestResponse {
  readonly status: number;
  /** JSON to send; absent for 204. */
  readonly body?: unknown;
}

export type RestHandler = (request: RestRequest) => Promise<RestResponse>;

type RestRecord = Readonly<Record<string, string>>;

const statusText: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  406: "Not Acceptable",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
};

/** RouterOS's error body: `detail` only when there is one, keys in the order RouterOS writes them. */
export function restError(status: number, detail?: string): RestResponse {
  const message = statusText[status] ?? "Error";
  return {
    status,
    body: detail === undefined ? { error: status, message } : { detail, error: status, message },
  };
}

/** What answers with an error status instead of a body; thrown inside, returned at the edge. */
class RestRefusal extends RouterjobsError {
  override readonly name = "RestRefusal";
  override readonly code = "RJ_ERR_COMMAND_FAILED";
  constructor(readonly response: RestResponse) {
    super(`REST ${response.status}`);
  }
}

const refuse = (status: number, detail?: string): never => {
  throw new RestRefusal(restError(status, detail));
};

/** The text a JSON value stands for as an argument; RouterOS takes numbers and booleans as their text. */
function argumentText(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return refuse(400, `value of ${name} must be a string, number or boolean`);
}

function bodyObject(body: unknown): Readonly<Record<string, unknown>> {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return refuse(400, "the body must be a JSON object");
  return body as Record<string, unknown>;
}

const noSuchPath = (segments: readonly string[]) =>
  refuse(400, `no such command or directory (${unknownPathWord(segments)})`);

interface Target {
  readonly menu: readonly string[];
  /** `*1`, or a name in a menu whose items have one. */
  readonly item?: string;
}

/** A resource path: a menu that prints, or such a menu and one item of it. */
function resolveTarget(segments: readonly string[]): Target {
  if (segments.length > 0 && catalog.hasCommand(segments, "print")) return { menu: segments };
  const menu = segments.slice(0, -1);
  const item = segments[segments.length - 1];
  if (item !== undefined && menu.length > 0 && catalog.hasCommand(menu, "print")) return { menu, item };
  return noSuchPath(segments);
}

export function restFrontEnd(handler: CommandHandler): RestHandler {
  /** One API command; its records are collected as the API would stream them. */
  const run = async (
    request: RestRequest,
    path: string,
    attributes: ReadonlyMap<string, string>,
    extra: { readonly proplist?: readonly string[]; readonly queries?: readonly string[] } = {},
  ): Promise<{ records: RestRecord[]; result: HandlerResult | undefined }> => {
    const records: RestRecord[] = [];
    const command: ApiCommand = {
      path,
      attributes,
      ...(extra.proplist ? { proplist: extra.proplist } : {}),
      queries: extra.queries ?? [],
      user: request.user,
      signal: request.signal,
      record: (record) => {
        if (!request.signal.aborted) records.push(sortedKeys(record));
      },
    };
    try {
      const result = await handler(command);
      if (request.signal.aborted) return refuse(400, "Session closed");
      return { records, result };
    } catch (error) {
      if (error instanceof RestRefusal) throw error;
      if (request.signal.aborted) return refuse(400, "Session closed");
      // A malformed query word is the client's mistake, as a trap is.
      if (error instanceof ApiTrap || error instanceof RouterApiProtocolError)
        return refuse(400, error.message);
      throw error;
    }
  };

  const print = (
    request: RestRequest,
    menu: readonly string[],
    queries: readonly string[],
    proplist?: readonly string[],
  ) =>
    run(request, `/${menu.join("/")}/print`, new Map(), { queries, ...(proplist ? { proplist } : {}) }).then(
      ({ records }) => records,
    );

  /** The query word that picks one item: its `.id`, or its name where the menu's items have one. */
  const itemQuery = (target: Target & { item: string }): string => {
    if (target.item.startsWith("*")) return `?.id=${target.item}`;
    const key = menuAt(target.menu)?.key;
    return key === undefined ? refuse(404) : `?${key}=${target.item}`;
  };

  /** The one item a path names, or 404. */
  const findItem = async (
    request: RestRequest,
    target: Target & { item: string },
    proplist?: readonly string[],
  ) => {
    const [found] = await print(request, target.menu, [itemQuery(target)], proplist);
    return found ?? refuse(404);
  };

  const isSettings = (menu: readonly string[]) => menuAt(menu)?.singleton === true;

  const requireVerb = (menu: readonly string[], verb: string) => {
    if (!catalog.hasCommand(menu, verb)) refuse(406, `no such command or directory (${verb})`);
  };

  const get = async (request: RestRequest, segments: readonly string[]): Promise<RestResponse> => {
    const target = resolveTarget(segments);
    let proplist: string[] | undefined;
    const queries: string[] = [];
    for (const [name, value] of request.query) {
      if (name === ".proplist") proplist = value.split(",").filter(Boolean);
      else queries.push(`?${name}=${value}`);
    }
    if (target.item !== undefined) {
      const item = target.item;
      return { status: 200, body: await findItem(request, { ...target, item }, proplist) };
    }
    const records = await print(request, target.menu, queries, proplist);
    if (isSettings(target.menu)) return { status: 200, body: records[0] ?? {} };
    return { status: 200, body: records };
  };

  const attributesOf = (body: unknown): Map<string, string> => {
    const attributes = new Map<string, string>();
    for (const [name, value] of Object.entries(bodyObject(body)))
      attributes.set(name, argumentText(name, value));
    return attributes;
  };

  const put = async (request: RestRequest, segments: readonly string[]): Promise<RestResponse> => {
    const target = resolveTarget(segments);
    if (target.item !== undefined) return noSuchPath(segments);
    requireVerb(target.menu, "add");
    const attributes = attributesOf(request.body);
    const { result } = await run(request, `/${target.menu.join("/")}/add`, attributes);
    const id = result?.done?.ret;
    if (id === undefined) return { status: 200, body: {} };
    return { status: 200, body: await findItem(request, { menu: target.menu, item: id }) };
  };

  const patch = async (request: RestRequest, segments: readonly string[]): Promise<RestResponse> => {
    const target = resolveTarget(segments);
    requireVerb(target.menu, "set");
    const attributes = attributesOf(request.body);
    const path = `/${target.menu.join("/")}/set`;
    if (target.item === undefined) {
      await run(request, path, attributes);
      if (!isSettings(target.menu)) return { status: 200, body: [] };
      const [settings] = await print(request, target.menu, []);
      return { status: 200, body: settings ?? {} };
    }
    const item = target.item;
    const id = (await findItem(request, { ...target, item }, [".id"]))[".id"] ?? item;
    attributes.set(".id", id);
    await run(request, path, attributes);
    return { status: 200, body: await findItem(request, { menu: target.menu, item: id }) };
  };

  const remove = async (request: RestRequest, segments: readonly string[]): Promise<RestResponse> => {
    const target = resolveTarget(segments);
    requireVerb(target.menu, "remove");
    const path = `/${target.menu.join("/")}/remove`;
    if (target.item === undefined) {
      await run(request, path, new Map());
      return { status: 204 };
    }
    const item = target.item;
    const id = (await findItem(request, { ...target, item }, [".id"]))[".id"] ?? item;
    await run(request, path, new Map([[".id", id]]));
    return { status: 204 };
  };

  const post = async (request: RestRequest, segments: readonly string[]): Promise<RestResponse> => {
    const path = `/${segments.join("/")}`;
    const verb = segments[segments.length - 1] ?? "";
    if (path !== "/execute" && !catalog.hasCommand(segments.slice(0, -1), verb)) return noSuchPath(segments);
    const attributes = new Map<string, string>();
    let proplist: string[] | undefined;
    const queries: string[] = [];
    for (const [name, value] of Object.entries(bodyObject(request.body))) {
      if (name === ".proplist")
        proplist = listOf(name, value)
          .flatMap((part) => part.split(","))
          .filter(Boolean);
      else if (name === ".query") queries.push(...listOf(name, value).map((word) => `?${word}`));
      else attributes.set(name, argumentText(name, value));
    }
    try {
      const { records, result } = await run(request, path, attributes, {
        queries,
        ...(proplist ? { proplist } : {}),
      });
      if (records.length > 0 || verb === "print" || verb === "getall") return { status: 200, body: records };
      const done = result?.done ?? {};
      return { status: 200, body: Object.keys(done).length > 0 ? sortedKeys(done) : [] };
    } catch (error) {
      // RouterOS answers a failing `/execute as-string` with the failure as its output, not as an error.
      if (path === "/execute" && attributes.has("as-string") && error instanceof RestRefusal) {
        const detail = (error.response.body as { detail?: string } | undefined)?.detail;
        if (detail !== undefined && detail !== "Session closed")
          return { status: 200, body: { ret: detail } };
      }
      throw error;
    }
  };

  const verbs: Readonly<
    Record<string, (request: RestRequest, segments: readonly string[]) => Promise<RestResponse>>
  > = { GET: get, PUT: put, PATCH: patch, DELETE: remove, POST: post };

  return async (request) => {
    const segments = request.path.split("/").slice(1);
    try {
      const verb = verbs[request.method];
      if (!verb) return restError(400, `method ${request.method} is not served`);
      if (segments.length === 0 || segments.some((segment) => segment === "")) return noSuchPath(segments);
      return await verb(request, segments);
    } catch (error) {
      if (error instanceof RestRefusal) return error.response;
      return restError(500);
    }
  };
}

/** RouterOS writes an object's keys in order (`.id` first), whatever order the router keeps them in. */
function sortedKeys(record: RestRecord): RestRecord {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function listOf(name: string, value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((entry) => typeof entry === "string")) return value;
  return refuse(400, `${name} must be a string or a list of strings`);
}
