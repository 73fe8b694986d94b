import { userDirectory } from "../platform/fs/user-dirs.js";

/**
 * Where routerjobs keeps per-user state shared by its processes (the rate budget): `$ROUTERJOBS_STATE_DIR`,
 * else `$XDG_STATE_HOME/routerjobs`, else `~/.local/state/routerjobs` (XDG Base Directory defaults).
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return userDirectory("state", env);
}
