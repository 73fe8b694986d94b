import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { UsageError } from "../../errors.js";

/** A path secret travels in a URL: URL-safe characters only, and long enough not to be guessed. */
const PATH_SECRET_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export function generateSecret(): string {
  return randomBytes(32).toString("base64url");
}

export function validatePathSecret(secret: string, setting: string): string {
  if (!PATH_SECRET_PATTERN.test(secret)) {
    throw new UsageError(
      `${setting} must be 16 to 128 characters of A-Z, a-z, 0-9, _ and - (got ${secret.length} characters)`,
    );
  }
  return secret;
}

/**
 * Reads a secret kept in the data directory, or creates it readable by its owner only. Creating with `wx` means
 * two instances starting on one directory end up with the same secret instead of overwriting each other's.
 */
export async function loadOrCreateSecretFile(path: string): Promise<string> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(dirname(path), { recursive: true });
  const secret = generateSecret();
  try {
    await writeFile(path, `${secret}\n`, { mode: 0o600, flag: "wx" });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readFile(path, "utf8")).trim();
  }
}
