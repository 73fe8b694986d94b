/**
 * The routers a token can see: `GET /api/routers`, an extension of routerjobs' own service (docs/service.md).
 * The spec and the public service's documentation (docs/public-service.md) name no such list, so a client
 * asks for it only to look a router up by name, and copes with a service that does not answer it.
 */
import * as z from "zod";
import { successEnvelope } from "./envelope.js";
import { tolerantUuidSchema } from "./ids.js";

export const routerSummarySchema = z.looseObject({
  id: tolerantUuidSchema,
  name: z.string(),
  online: z.boolean().optional(),
});
export type RouterSummary = z.output<typeof routerSummarySchema>;

export const routerListEnvelopeSchema = successEnvelope(z.array(routerSummarySchema));

/** `edge-1 (<id>)` where the name is known, else the id. */
export function namedRouter(routerId: string, names: ReadonlyMap<string, string>): string {
  const name = names.get(routerId);
  return name === undefined ? routerId : `${name} (${routerId})`;
}
