/**
 * The key file of router-secrets: read when it exists, created (mode 0600, exclusively) when it does not.
 * A file that group or others can read is refused rather than used: the key decrypts every router password.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { link, mkdir, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { EnvironmentError } from "../../errors.js";

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, "0")}`;

async function readPrivate(path: string): Promise<string> {
  // O_NOFOLLOW: a symbolic link planted in the data directory does not redirect the key elsewhere.
  const handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new EnvironmentError(`the router key file ${path} is not a regular file`);
    // Windows has no such permission bits: there the data directory's ACL is what protects the file.
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
      throw new EnvironmentError(
        `the router key file ${path} has mode ${octal(stat.mode)}: group and others must not read it (chmod 600 ${path})`,
      );
    }
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** The file's text, and its path; `create` gives the text of a new file. */
export async function readOrCreateKeyFile(
  dir: string,
  name: string,
  create: () => string,
): Promise<{ path: string; text: string }> {
  const path = join(dir, name);
  for (;;) {
    try {
      return { path, text: await readPrivate(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw describe(error, path);
    }
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Written whole under a temporary name, then linked into place: a concurrent reader never sees a half file.
    const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      const handle = await open(temporary, "wx", 0o600);
      try {
        await handle.writeFile(create());
        await handle.sync();
      } finally {
        await handle.close();
      }
      await link(temporary, path);
    } catch (error) {
      // Another process created it first: read theirs, so both use the same key.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw describe(error, path);
    } finally {
      await rm(temporary, { force: true });
    }
  }
}

function describe(error: unknown, path: string): Error {
  if (error instanceof EnvironmentError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new EnvironmentError(
    code === "ELOOP"
      ? `the router key file ${path} is a symbolic link: put the key file itself there`
      : `cannot use the router key file ${path}: ${(error as Error).message}`,
  );
}
