import { z } from "zod";
import { uuidSchema } from "../contract/ids.js";
import { ROUTER_NAME_MAX_CHARS } from "../contract/limits.js";
import { parseSigningSecret } from "../contract/signing-secret.js";
import { textField } from "../contract/text-field.js";
import { tokenSchema } from "../contract/token.js";
import { UsageError } from "../errors.js";
import type { Database } from "../store/database.js";
import { ensureRouter, ensureTeam, ensureToken } from "./store/directory.js";

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

/** The seed file of CONTRACT.md ("Running the service"), plus an optional Standard Webhooks signing secret. */
export const seedSchema = z.strictObject({
  teams: z.array(
    z
      .strictObject({
        id: uuidSchema,
        customer_id: uuidSchema.optional(),
        signing_secret: signingSecretSchema.optional(),
        tokens: z.array(tokenSchema).default([]),
        routers: z
          .array(
            z.strictObject({
              id: uuidSchema,
              name: textField("name", { nonEmpty: true, maxChars: ROUTER_NAME_MAX_CHARS }),
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
export type Seed = z.output<typeof seedSchema>;

export interface SeedResult {
  readonly teams: number;
  readonly tokens: number;
  /** Routers that exist after the seed (new or already there). */
  readonly routers: readonly { readonly id: string; readonly name: string }[];
}

/** Applies a seed idempotently: existing records stay, missing ones are created, in one transaction. */
export async function applySeed(db: Database, seed: Seed): Promise<SeedResult> {
  return db.transaction(async (tx) => {
    let tokens = 0;
    const routers: { id: string; name: string }[] = [];
    for (const team of seed.teams) {
      await ensureTeam(tx, { id: team.id, customerId: team.customer_id, signingSecret: team.signing_secret });
      for (const token of team.tokens) {
        if (!(await ensureToken(tx, token))) {
          // The id alone: the rest of the token is a secret.
          throw new UsageError(
            `seed: token ${token.slice(0, token.indexOf(":"))} already exists with another team or secret`,
          );
        }
        tokens++;
      }
      for (const router of team.routers) {
        if (!(await ensureRouter(tx, { id: router.id, teamId: team.id, name: router.name }))) {
          throw new UsageError(`seed: router ${router.id} belongs to another team or was removed`);
        }
        routers.push(router);
      }
    }
    return { teams: seed.teams.length, tokens, routers };
  });
}

export function parseSeed(text: string, source = "seed file"): Seed {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  const result = seedSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new UsageError(`${source}: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  return result.data;
}
