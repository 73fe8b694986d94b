import { readFileSync } from "node:fs";

/**
 * Whether a process with this id exists on this machine: a lock or a grant whose holder died is free to take.
 * EPERM means it exists but belongs to another user. A zombie (a process killed, say with kill -9, that its
 * parent has not reaped yet, for a second or two) answers `kill 0` too, but it is dead: on Linux its state in
 * /proc says so.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/** `Z` (zombie) or `X` (dead) in /proc/<pid>/stat; false where there is no /proc. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: the state is the first field after the last ")".
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return false;
  }
}
