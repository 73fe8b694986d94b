/**
 * Whether a process with this id exists on this machine: a lock or a grant whose holder died is free to take.
 * EPERM means it exists but belongs to another user.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
