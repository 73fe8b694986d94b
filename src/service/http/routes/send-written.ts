import type { Readable } from "node:stream";
import type { FastifyReply } from "fastify";

/**
 * Sends JSON written already, as it is: Fastify serializes (and the response schema checks) only what is not
 * a string or a stream. The job lists' answers (the spec's and the sites API's) are written by the database;
 * their response schemas stay as their description, and test/service/jobs/job-list-json.test.ts and sites.test.ts
 * hold the database's JSON to the items the schemas describe.
 */
export function sendWritten(reply: FastifyReply, json: string | Readable): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}

/**
 * A list's answer around its chunks of JSON items (comma-separated each): `open`, the items, `close`. The first
 * chunk is read by the caller before the status line goes out, so that a failing database is answered as an
 * error; a later failure can only cut the answer short, which no client takes for a list.
 */
export async function* aroundChunks(
  open: string,
  first: IteratorResult<string>,
  rest: AsyncGenerator<string>,
  close: string,
): AsyncGenerator<string> {
  yield `${open}${first.done ? "" : first.value}`;
  if (!first.done) for await (const chunk of rest) yield `,${chunk}`;
  yield close;
}
