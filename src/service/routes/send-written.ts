import type { Readable } from "node:stream";
import type { FastifyReply } from "fastify";

/**
 * Sends JSON written already, as it is: Fastify serializes (and the response schema checks) only what is not
 * a string or a stream. The job lists' answers (the spec's and the sites API's) are written by the database;
 * their response schemas stay as their description, and test/service/job-list-json.test.ts and sites.test.ts
 * hold the database's JSON to the items the schemas describe.
 */
export function sendWritten(reply: FastifyReply, json: string | Readable): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}
