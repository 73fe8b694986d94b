import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import * as z from "zod";
import { deviceSchema, passwordFromFile } from "../contract/device.js";
import { uuidSchema } from "../contract/ids.js";
import { ROUTER_NAME_MAX_CHARS, TEAM_NAME_MAX_CHARS } from "../contract/limits.js";
import { describeEndpoint } from "../contract/routers/device-endpoint.js";
import { parseSigningSecret } from "../contract/signing-secret.js";
import { textField } from "../contract/text-field.js";
import { tokenSchema } from "../contract/token.js";
import { UsageError } from "../errors.js";
import { ensureRouter, ensureTeam, ensureToken } from "./auth/directory.js";
import type { Database } from "./database/database.js";
import { endpointFromDevice, saveEndpoint } from "./routers/endpoints.js";
import type { RouterKeyring } from "./routers/router-secrets.js";

/** A team's Standard Webhooks secret: the receiver's own rule, so that it verifies whatever the service signs. */
const signingSecretSchema = z.string().refine(
  (secret) => {
    try {
      parseSigningSecret(secret);
      return true;
    } catch {
      return false;
    }
  },
  // The secret itself is never echoed.
  { error: "signing_secret must be whsec_ followed by the base64 of 24 to 64 random bytes" },
);

/**
 * The seed of `routerjobs service --seed` (docs/service.md, "Running it"), plus an optional Standard Webhooks
 * signing secret and, per router, an optional `device` (a real RouterOS device; contract/device.ts). Built
 * for two forms of `device`: the admin API's (the password itself) and the seed file's (`password_file`,
 * `tls_ca_file`).
 */
function seedSchemaWith<DeviceSchema extends z.ZodType>(device: DeviceSchema) {
  return z.strictObject({
    teams: z.array(
      z
        .strictObject({
          id: uuidSchema,
          /** What people call the team: the portal shows it instead of the id. */
          name: textField("name", { nonEmpty: true, maxChars: TEAM_NAME_MAX_CHARS }).optional(),
          customer_id: uuidSchema.optional(),
          signing_secret: signingSecretSchema.optional(),
          tokens: z.array(tokenSchema).default([]),
          routers: z
            .array(
              z.strictObject({
                id: uuidSchema,
                name: textField("name", { nonEmpty: true, maxChars: ROUTER_NAME_MAX_CHARS }),
                device: device.optional(),
              }),
            )
            .default([]),
        })
        .superRefine((team, ctx) => {
          for (const [index, token] of team.tokens.entries()) {
            if (!token.includes(`:${team.id}:`)) {
              ctx.addIssue({
                code: "custom",
                path: ["tokens", index],
                message: `the token's second part must be this team's id ${team.id}`,
                input: "<redacted>",
              });
            }
          }
        }),
    ),
  });
}

/** What `/admin/seed` takes and `applySeed` applies. */
export const seedSchema = seedSchemaWith(deviceSchema);

/** A seed file's `device`: the secret and the CA come from files, relative to the seed file. */
const deviceFileSchema = z
  .looseObject({
    password_file: textField("password_file", { nonEmpty: true }),
    tls_ca_file: textField("tls_ca_file", { nonEmpty: true }).optional(),
  })
  .refine((device) => !("password" in device) && !("tls_ca" in device), {
    // A password in the seed file would sit in clear text beside the configuration; a file can be 0600.
    error: "a seed file names password_file and tls_ca_file, not password or tls_ca",
  });
const seedFileSchema = seedSchemaWith(deviceFileSchema);
type SeedFile = z.output<typeof seedFileSchema>;

export type Seed = z.output<typeof seedSchema>;

export interface SeedResult {
  readonly teams: number;
  readonly tokens: number;
  /** Routers that exist after the seed (new or already there); a device router with its endpoint described. */
  readonly routers: readonly { readonly id: string; readonly name: string; readonly device?: unknown }[];
}

/**
 * Applies a seed idempotently: existing records stay, missing ones are created, in one transaction. A router
 * with a `device` gets that endpoint (replacing the one it had); `keyring` is asked for only then.
 */
export async function applySeed(
  db: Database,
  seed: Seed,
  keyring?: () => Promise<RouterKeyring>,
): Promise<SeedResult> {
  const devices = seed.teams.some((team) => team.routers.some((router) => router.device));
  if (devices && !keyring) throw new UsageError("seed: routers with a device need the service's router key");
  const keys = devices && keyring ? await keyring() : undefined;
  return db.transaction(async (tx) => {
    let tokens = 0;
    const routers: SeedResult["routers"][number][] = [];
    for (const team of seed.teams) {
      await ensureTeam(tx, {
        id: team.id,
        customerId: team.customer_id,
        signingSecret: team.signing_secret,
        name: team.name,
      });
      for (const token of team.tokens) {
        if (!(await ensureToken(tx, token))) {
          // The id alone: the rest of the token is a secret.
          throw new UsageError(
            `seed: token ${token.slice(0, token.indexOf(":"))} already exists with another team or secret`,
          );
        }
        tokens++;
      }
      for (const { id, name, device } of team.routers) {
        if (!(await ensureRouter(tx, { id, teamId: team.id, name }))) {
          throw new UsageError(`seed: router ${id} belongs to another team or was removed`);
        }
        if (device && keys) {
          const endpoint = endpointFromDevice(device);
          await saveEndpoint(tx, id, endpoint, keys);
          routers.push({ id, name, device: describeEndpoint(endpoint) });
        } else routers.push({ id, name });
      }
    }
    return { teams: seed.teams.length, tokens, routers };
  });
}

function firstIssue(error: z.ZodError, source: string): UsageError {
  const issue = error.issues[0];
  return new UsageError(`${source}: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
}

async function readSeedPart(file: string, seedFile: string, field: string): Promise<string> {
  const path = resolve(dirname(seedFile), file);
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    // The path and the system's reason only: never the content.
    throw new UsageError(
      `${seedFile}: ${field}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code}`,
    );
  }
}

/** A seed file's devices with their files read: the form the admin API takes. */
async function withDeviceFiles(seed: SeedFile, seedFile: string): Promise<unknown> {
  return {
    teams: await Promise.all(
      seed.teams.map(async (team, teamIndex) => ({
        ...team,
        routers: await Promise.all(
          team.routers.map(async (router, routerIndex) => {
            if (!router.device) return router;
            const at = `teams.${teamIndex}.routers.${routerIndex}.device`;
            const { password_file: passwordFile, tls_ca_file: caFile, ...rest } = router.device;
            const password = passwordFromFile(
              await readSeedPart(passwordFile, seedFile, `${at}.password_file`),
            );
            const ca = caFile ? await readSeedPart(caFile, seedFile, `${at}.tls_ca_file`) : undefined;
            return { ...router, device: { ...rest, password, ...(ca === undefined ? {} : { tls_ca: ca }) } };
          }),
        ),
      })),
    ),
  };
}

/**
 * A seed file's text, checked and with its devices' files read (relative to the file): what `applySeed` and
 * `/admin/seed` take. Every problem is a UsageError naming the field, never a password.
 */
export async function parseSeed(text: string, source = "seed file"): Promise<Seed> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  const file = seedFileSchema.safeParse(json);
  if (!file.success) throw firstIssue(file.error, source);
  const result = seedSchema.safeParse(await withDeviceFiles(file.data, source));
  if (!result.success) throw firstIssue(result.error, source);
  return result.data as Seed;
}

/** Reads and checks a seed file (`service --seed`, `service seed`). */
export async function readSeedFile(file: string): Promise<Seed> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read the seed file ${file}: ${(error as Error).message}`);
  }
  return parseSeed(text, file);
}
