/**
 * A token verified once is answered without a statement until a revocation begins; a revocation that overlaps
 * a lookup keeps that lookup's answer from being trusted later; a wrong secret is always looked up. On a real
 * embedded store (PGlite, in memory), its statements counted.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { revokeToken } from "../../../src/service/auth/directory.js";
import { Verified } from "../../../src/service/auth/verified.js";
import { VerifiedTokens } from "../../../src/service/auth/verified-tokens.js";
import type { Database, Queryable } from "../../../src/service/database/database.js";
import { TEAM_A, TOKEN_A, TOKEN_A2, TOKEN_B } from "../harness.js";
import { openSeededStore, watched } from "../jobs/fixture.js";

const tokenId = (token: string) => token.split(":")[0] as string;
const withSecret = (token: string, secret: string) => token.replace(/[^:]+$/, secret);

describe("verified tokens", () => {
  let store: Database;
  let db: Database;
  let statements: number;
  beforeEach(async () => {
    store = await openSeededStore();
    statements = 0;
    db = watched(store, () => statements++);
  });
  afterEach(async () => store?.close());

  it("looks a token up once; later requests with it run no statement", async () => {
    const verified = new VerifiedTokens();
    expect(await verified.authenticate(db, TOKEN_A)).toEqual({ tokenId: tokenId(TOKEN_A), teamId: TEAM_A });
    expect(statements).toBe(1);
    expect(await verified.authenticate(db, TOKEN_A)).toEqual({ tokenId: tokenId(TOKEN_A), teamId: TEAM_A });
    expect(await verified.authenticate(db, TOKEN_B)).toMatchObject({ tokenId: tokenId(TOKEN_B) });
    expect(await verified.authenticate(db, TOKEN_B)).toMatchObject({ tokenId: tokenId(TOKEN_B) });
    expect(statements).toBe(2);
  });

  it("a revoked token is refused at once, though it was verified before", async () => {
    const verified = new VerifiedTokens();
    await verified.authenticate(db, TOKEN_A2);
    expect(await revokeToken(store, tokenId(TOKEN_A2), new Date())).toBe(true);
    expect(await verified.authenticate(db, TOKEN_A2)).toBeUndefined();
    // Other tokens are looked up again once, then trusted again.
    await verified.authenticate(db, TOKEN_A);
    const before = statements;
    expect(await verified.authenticate(db, TOKEN_A)).toMatchObject({ teamId: TEAM_A });
    expect(statements).toBe(before);
  });

  it("a lookup that a revocation overlaps answers as it read, and is not trusted afterwards", async () => {
    const verified = new VerifiedTokens();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The lookup has read the token (not yet revoked) but not returned when the revocation runs.
    const slow: Queryable = {
      query: async (sql, params) => {
        const result = await db.query(sql, params);
        await held;
        return result as never;
      },
    };
    const lookup = verified.authenticate(slow, TOKEN_A2);
    await revokeToken(store, tokenId(TOKEN_A2), new Date());
    release();
    expect(await lookup).toMatchObject({ tokenId: tokenId(TOKEN_A2) });
    expect(await verified.authenticate(db, TOKEN_A2)).toBeUndefined();
  });

  it("a wrong secret for a verified token id is looked up, and refused; so is another team's id", async () => {
    const verified = new VerifiedTokens();
    await verified.authenticate(db, TOKEN_A);
    const before = statements;
    expect(await verified.authenticate(db, withSecret(TOKEN_A, "x".repeat(62)))).toBeUndefined();
    expect(statements).toBe(before + 1);
    const otherTeam = TOKEN_A.replace(TEAM_A, "b0000000-0000-4000-8000-0000000000ff");
    expect(await verified.authenticate(db, otherTeam)).toBeUndefined();
    expect(statements).toBe(before + 2);
    expect(await verified.authenticate(db, "not a token")).toBeUndefined();
    expect(statements).toBe(before + 2);
  });

  it("is kept for the embedded store only: on PostgreSQL another instance may revoke", () => {
    expect(VerifiedTokens.forStore({ kind: "pglite" })).toBeInstanceOf(VerifiedTokens);
    expect(VerifiedTokens.forStore({ kind: "postgres" })).toBeUndefined();
    expect(Verified.forStore({ kind: "postgres" })).toBeUndefined();
  });

  it("past its capacity it starts again empty, and still answers", async () => {
    const verified = new VerifiedTokens(new Verified(1));
    await verified.authenticate(db, TOKEN_A);
    await verified.authenticate(db, TOKEN_B);
    const before = statements;
    expect(await verified.authenticate(db, TOKEN_A)).toMatchObject({ teamId: TEAM_A });
    expect(statements).toBe(before + 1);
  });
});
