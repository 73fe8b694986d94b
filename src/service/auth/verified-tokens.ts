import { timingSafeEqual } from "node:crypto";
import { isParsedToken, parseToken } from "../../contract/token.js";
import type { Database, Queryable } from "../database/database.js";
import { authenticate, type Caller, hashSecret } from "./directory.js";
import { Verified } from "./verified.js";

interface VerifiedToken {
  readonly caller: Caller;
  readonly secretHash: Buffer;
}

/**
 * API tokens this process has verified (verified.ts says when that is exact: the embedded store). A synchronous
 * call to a router was two statements (the token, the router), each of which could wait behind another
 * router's bulk read; now one.
 *
 * Only the right secret is answered from memory: a wrong one for a known token id is looked up as before, so
 * how long the answer takes still does not say which token ids exist.
 */
export class VerifiedTokens {
  constructor(private readonly verified: Verified<VerifiedToken> = new Verified()) {}

  /** Tokens remembered for `db`, or undefined where another process may revoke them (Verified.forStore). */
  static forStore(db: Pick<Database, "kind">): VerifiedTokens | undefined {
    const memory = Verified.forStore<VerifiedToken>(db);
    return memory && new VerifiedTokens(memory);
  }

  async authenticate(db: Queryable, token: string): Promise<Caller | undefined> {
    const parsed = parseToken(token);
    if (!isParsedToken(parsed)) return undefined;
    const secretHash = Buffer.from(hashSecret(parsed.secret), "hex");
    const known = this.verified.known(parsed.tokenId);
    if (known && known.caller.teamId === parsed.teamId && timingSafeEqual(known.secretHash, secretHash))
      return known.caller;
    const found = await this.verified.verify(parsed.tokenId, async () => {
      const caller = await authenticate(db, token);
      return caller && { caller, secretHash };
    });
    return found?.caller;
  }
}
