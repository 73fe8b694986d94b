import * as z from "zod";

/** Lowercase RFC 9562 UUID, as the contract requires for every identifier the spec calls "UUID format". */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const uuidSchema = z
  .string()
  .regex(UUID_PATTERN, { error: (issue) => `must be a lowercase UUID (got ${describeValue(issue.input)})` });

/** Responses from a real service may use upper case; accept any UUID-looking string there. */
export const tolerantUuidSchema = z.string().min(1);

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** Short, safe rendering of a rejected value for error messages (never the whole of a long value). */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    return value.length > 40
      ? `${JSON.stringify(value.slice(0, 40))}... (${value.length} characters)`
      : JSON.stringify(value);
  }
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
