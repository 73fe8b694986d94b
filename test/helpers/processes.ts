/** The machine's processes as any local user sees them in `ps` (Linux /proc); empty elsewhere. */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface ProcessInfo {
  readonly pid: number;
  /** The command line, arguments joined by spaces. */
  readonly args: string;
  /** The working folder, when this user may read it. */
  readonly cwd: string | undefined;
}

export function processes(): ProcessInfo[] {
  if (process.platform !== "linux") return [];
  const found: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      let cwd: string | undefined;
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // another user's process: its command line is public, its folder is not
      }
      found.push({ pid: Number(entry), args, cwd });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
