/**
 * `routerjobs jobs r | head -3`: when the reader of our output goes away, the next write fails with EPIPE.
 * Unhandled, that error is an 'error' event on process.stdout and Node dies with a stack trace. A command-line
 * tool whose reader left has nothing more to say to anyone: it stops quietly with the exit code it had.
 */
export function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  });
}
