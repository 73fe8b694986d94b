import type * as z from "zod";
import { UsageError } from "../errors.js";

/**
 * Reads JSON that the constructs wrote into a provisioner's environment (`ROUTERJOBS_JOB`,
 * `ROUTERJOBS_VERIFY`): every problem is one UsageError naming the variable and each field, so that a
 * hand-edited or stale stack says what is wrong instead of failing somewhere later.
 */
export function parseEnvJson<Schema extends z.ZodType>(
  schema: Schema,
  text: string,
  variable: string,
  what: string,
): z.output<Schema> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${variable} is not valid JSON: ${(error as Error).message}`);
  }
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.join(".") || what;
    // The contract's messages often start with the field name already.
    return issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
  });
  throw new UsageError(`${variable} is not a valid ${what}: ${problems.join("; ")}`);
}
