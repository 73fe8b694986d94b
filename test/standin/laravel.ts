/** Replies shaped the way a Laravel application answers; the public service appears to be one. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Sent as it is, as text/plain, in place of `body` as JSON. */
  text?: string;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});
export const notFound = (): Reply => json(404, { message: "Not Found." });
export const unauthenticated = (): Reply => json(401, { message: "Unauthenticated." });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Laravel's `boolean` rule: true, false, 1, 0, "1", "0"; headers also carry "true"/"false". */
export function toBoolean(value: unknown): boolean | undefined {
  if (value === true || value === 1 || value === "1" || value === "true") return true;
  if (value === false || value === 0 || value === "0" || value === "false") return false;
  return undefined;
}

/** Collects messages per field, in Laravel's words, and renders the 422 body. */
export class Validation {
  private readonly errors: Record<string, string[]> = {};

  private fail(field: string, text: string): undefined {
    const name = field.replaceAll("_", " ");
    this.errors[field] = [...(this.errors[field] ?? []), `The ${name} field ${text}.`];
    return undefined;
  }

  /** Present and a non-empty string, within length bounds; returns the string when it passes. */
  text(
    field: string,
    value: unknown,
    rules: { required: boolean; min?: number; max?: number },
  ): string | undefined {
    if (value === undefined || value === null || value === "") {
      if (rules.required) this.fail(field, "is required");
      return undefined;
    }
    if (typeof value !== "string") return this.fail(field, "must be a string");
    if (rules.min !== undefined && value.length < rules.min)
      return this.fail(field, `must be at least ${rules.min} characters`);
    if (rules.max !== undefined && value.length > rules.max)
      return this.fail(field, `must not be greater than ${rules.max} characters`);
    return value;
  }

  boolean(field: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined || value === null) return fallback;
    const parsed = toBoolean(value);
    if (parsed === undefined) this.fail(field, "must be true or false");
    return parsed ?? fallback;
  }

  uuid(field: string, value: unknown): string | undefined {
    const text = this.text(field, value, { required: true });
    if (text !== undefined && !UUID.test(text)) return this.fail(field, "must be a valid UUID");
    return text;
  }

  startsWith(field: string, value: string | undefined, prefix: string): void {
    if (value !== undefined && !value.startsWith(prefix))
      this.fail(field, `must start with one of the following: ${prefix}`);
  }

  stringArray(field: string, value: unknown): string[] {
    if (value === undefined || value === null) return [];
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
    this.fail(field, "must be an array of strings");
    return [];
  }

  /** The 422 reply when anything failed: the first message, "(and N more errors)", then every field. */
  failure(): Reply | undefined {
    const messages = Object.values(this.errors).flat();
    if (messages.length === 0) return undefined;
    const more = messages.length - 1;
    const suffix = more === 0 ? "" : ` (and ${more} more error${more === 1 ? "" : "s"})`;
    return json(422, { message: `${messages[0]}${suffix}`, errors: this.errors });
  }
}
