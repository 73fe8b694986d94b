import { UsageError } from "../../errors.js";

/**
 * A setting from its flag, else from its environment variable (an empty one counts as unset); undefined when
 * neither is given. It is parsed with the name the user set it by, so a bad value's error names the flag or
 * the variable, and that error is a usage error (exit 2).
 */
export function flagOrEnv<T>(
  flag: string,
  variable: string,
  value: string | undefined,
  env: NodeJS.ProcessEnv,
  parse: (text: string, name: string) => T,
): T | undefined {
  const text = value ?? env[variable];
  if (text === undefined || text === "") return undefined;
  try {
    return parse(text, value !== undefined ? flag : variable);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
