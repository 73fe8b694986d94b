/**
 * A router as a person names it on the command line: its UUID in any case, or its name, looked up in the
 * routers the token can see (`GET /api/routers`, our service's extension). A name that several routers share,
 * or none, is refused with the candidates, never guessed.
 */
import type { RouterJobsClient } from "../../client/client.js";
import type { RouterSummary } from "../../contract/router-list.js";
import { UsageError } from "../../errors.js";

const ANY_CASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How many routers an error lists before it says how many more there are. */
const LISTED = 10;

export const ROUTER_ARGUMENT_HELP = "router UUID (any case), or its name as `routerjobs routers` lists it";

/** The router's id: a UUID as given (lowercase), or the one router whose name is `given`. */
export async function resolveRouter(client: RouterJobsClient, given: string): Promise<string> {
  if (ANY_CASE_UUID.test(given)) return given.toLowerCase();
  const routers = await client.listRouters();
  if (routers === undefined)
    throw new UsageError(
      `router must be a UUID (got ${JSON.stringify(given)}): this service lists no routers to look a name up in (GET /api/routers is an extension of routerjobs' own service)`,
    );
  const exact = routers.filter((router) => router.name === given);
  const found =
    exact.length > 0 ? exact : routers.filter((router) => router.name.toLowerCase() === given.toLowerCase());
  if (found.length === 1) return (found[0] as RouterSummary).id;
  if (found.length > 1)
    throw new UsageError(
      `router ${JSON.stringify(given)} is ambiguous: ${found.length} routers have that name (${listed(found)}); give its UUID`,
    );
  throw new UsageError(
    routers.length === 0
      ? `no router named ${JSON.stringify(given)}: the token sees no routers`
      : `no router named ${JSON.stringify(given)}; the token's routers: ${listed(routers)}`,
  );
}

function listed(routers: readonly RouterSummary[]): string {
  const shown = routers.slice(0, LISTED).map((router) => `${router.name} (${router.id})`);
  const more = routers.length - shown.length;
  return shown.join(", ") + (more > 0 ? ` and ${more} more (routerjobs routers lists them)` : "");
}
