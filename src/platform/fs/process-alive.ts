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

/**
 * When the process started, in clock ticks since boot (/proc/<pid>/stat's 22nd field): with its id, a name no
 * later process on this machine has. Undefined where there is no /proc.
 */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command's ")" start with the 3rd (the state): the 22nd is the 20th of them.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
