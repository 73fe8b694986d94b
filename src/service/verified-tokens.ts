import { timingSafeEqual } from "node:crypto";
import { isParsedToken, parseToken } from "../contract/token.js";
import type { Queryable } from "../store/database.js";
import { authenticate, type Caller, hashSecret, tokenRevocations } from "./store/directory.js";

interface Verified {
  readonly caller: Caller;
  readonly secretHash: Buffer;
  /** `tokenRevocations()` when the lookup that verified the token began. */
  readonly revocations: number;
}

/**
 * Tokens this process has verified, so that a request on the embedded store skips its token's lookup: each
 * statement there is a round trip to the database's thread (docs/decisions.md), and a synchronous call to a
 * router was two (the token, the router), each of which could wait behind another router's bulk read.
 *
 * Exact, not a cache that may be stale: a service on PGlite is the only process on its store (its data
 * directory is locked), tokens never change but by revocation, and every revocation runs in this process
 * through `revokeToken`, which counts it. A verified token is trusted only while no revocation has begun since
 * its lookup began. On PostgreSQL another instance may revoke a token: the service does not use this there.
 *
 * Only the right secret is answered from memory: a wrong one for a known token id is looked up as before, so
 * how long the answer takes still does not say which token ids exist.
 */
export class VerifiedTokens {
  private readonly verified = new Map<string, Verified>();

  /** @param capacity Tokens kept; past it the memory starts again empty (a service has a handful). */
  constructor(private readonly capacity = 1024) {}

  async authenticate(db: Queryable, token: string): Promise<Caller | undefined> {
    const parsed = parseToken(token);
    if (!isParsedToken(parsed)) return undefined;
    const known = this.verified.get(parsed.tokenId);
    if (known && known.revocations === tokenRevocations() && known.caller.teamId === parsed.teamId) {
      const given = Buffer.from(hashSecret(parsed.secret), "hex");
      if (timingSafeEqual(known.secretHash, given)) return known.caller;
    }
    const revocations = tokenRevocations();
    const caller = await authenticate(db, token);
    if (caller && revocations === tokenRevocations()) {
      if (this.verified.size >= this.capacity) this.verified.clear();
      this.verified.set(parsed.tokenId, {
        caller,
        secretHash: Buffer.from(hashSecret(parsed.secret), "hex"),
        revocations,
      });
    }
    return caller;
  }
}
