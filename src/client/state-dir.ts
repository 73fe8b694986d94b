import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where routerjobs keeps per-user state shared by its processes (the rate budget): `$ROUTERJOBS_STATE_DIR`,
 * else `$XDG_STATE_HOME/routerjobs`, else `~/.local/state/routerjobs` (XDG Base Directory defaults).
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ROUTERJOBS_STATE_DIR) return env.ROUTERJOBS_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, "routerjobs");
  return join(homedir(), ".local", "state", "routerjobs");
}
