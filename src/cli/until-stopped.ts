/**
 * Resolves when the operator stops a long-running command (SIGTERM from a supervisor, SIGINT from Ctrl-C), so
 * the command can close what it holds and exit 0 instead of dying where it stands.
 */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      resolve();
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
}
