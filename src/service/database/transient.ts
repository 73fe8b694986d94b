/**
 * PostgreSQL ends one transaction of a deadlock (40P01) or a serialization conflict (40001) so that the others
 * can go on; the victim did nothing and may simply run again. Anything else is not a passing conflict.
 */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(["40P01", "40001"]);

export function isTransientConflict(error: unknown): boolean {
  return TRANSIENT_CODES.has(String((error as { code?: unknown } | null)?.code));
}

/** Runs `transaction` again while PostgreSQL picks it as a conflict's victim, at most `attempts` times. */
export async function retryTransient<T>(transaction: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= attempts || !isTransientConflict(error)) throw error;
    }
  }
}
