import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The XDG Base Directory kinds routerjobs uses, each with the variable that overrides it for routerjobs alone,
 * the XDG variable, and the XDG default under the home folder.
 */
const KINDS = {
  /** Per-user state its processes share (the rate budget). */
  state: { own: "ROUTERJOBS_STATE_DIR", xdg: "XDG_STATE_HOME", fallback: [".local", "state"] },
  /** What can be made again when lost (the PGlite database template). */
  cache: { own: "ROUTERJOBS_CACHE_DIR", xdg: "XDG_CACHE_HOME", fallback: [".cache"] },
} as const;

/** `$ROUTERJOBS_<KIND>_DIR`, else `$XDG_<KIND>_HOME/routerjobs`, else the XDG default `~/.../routerjobs`. */
export function userDirectory(kind: keyof typeof KINDS, env: NodeJS.ProcessEnv = process.env): string {
  const { own, xdg, fallback } = KINDS[kind];
  const chosen = env[own];
  if (chosen) return chosen;
  const base = env[xdg];
  if (base) return join(base, "routerjobs");
  return join(homedir(), ...fallback, "routerjobs");
}
