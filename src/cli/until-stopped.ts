import { InterruptedError } from "../errors.js";

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

/**
 * Runs `work` with a signal that Ctrl-C or SIGTERM aborts, and ends it as interrupted (exit 130, `message`)
 * whatever the work then threw: an aborted request or pause surfaces as an AbortError or as the reason, and
 * either way the operator stopped it. An `InterruptedError` the work threw itself is kept: it says what the
 * work did about the interrupt.
 */
export async function untilInterrupted<T>(
  message: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const stop = () => controller.abort(new InterruptedError(message));
  process.once("SIGINT", stop).once("SIGTERM", stop);
  try {
    return await work(controller.signal);
  } catch (error) {
    // The work's own account of the interrupt (apply's cancel of its job) says more than the generic one.
    if (controller.signal.aborted) throw error instanceof InterruptedError ? error : controller.signal.reason;
    throw error;
  } finally {
    process.off("SIGINT", stop).off("SIGTERM", stop);
  }
}
