/**
 * Revocations (of an API token, of a portal session) begun in this process. What a lookup verified may be
 * trusted later without looking again only while this count is what it was when the lookup began
 * (verified.ts); a revocation counts as it begins and again as it ends, so a lookup that overlaps it in any way
 * is not trusted later.
 */
let begun = 0;

export const revocationsBegun = (): number => begun;

/** Runs `revoke`, counted before and after. */
export async function revoking<T>(revoke: () => Promise<T>): Promise<T> {
  begun++;
  try {
    return await revoke();
  } finally {
    begun++;
  }
}
