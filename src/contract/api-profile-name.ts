/**
 * The names of the API profiles, without zod or any schema: the CLI validates `--api` on its start-up path,
 * before it loads the client (src/client/profiles.ts holds what each profile means).
 */
export const API_PROFILES = ["spec", "sdx"] as const;
export type ApiProfileName = (typeof API_PROFILES)[number];

/** @default "spec": the spec's API, which our service and the public service both answer. */
export const DEFAULT_API_PROFILE: ApiProfileName = "spec";

export function isApiProfileName(value: unknown): value is ApiProfileName {
  return (API_PROFILES as readonly unknown[]).includes(value);
}

/** The profile named by `text`; throws an Error naming `name` (the flag or variable) and both values. */
export function parseApiProfile(text: string, name: string): ApiProfileName {
  const value = text.trim().toLowerCase();
  if (isApiProfileName(value)) return value;
  throw new Error(
    `${name} must be spec (the spec's /api/... paths) or sdx (the sites API) (got ${JSON.stringify(text)})`,
  );
}
