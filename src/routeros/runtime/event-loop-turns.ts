/**
 * Turns of the event loop for running scripts, one script per loop iteration.
 *
 * A script that has run for a while pauses to let the process serve requests. Had each paused script simply
 * awaited `setImmediate`, every script paused at that moment would resume in the same check phase, one after
 * the other, before the loop polled again: with four runaway scripts of one team, another team's synchronous
 * call waited four turns. Here the paused scripts queue, and one resumes per iteration, so a request waits at
 * most one script's turn whatever the number of scripts running (one tenant cannot starve another).
 */
const waiting: Array<() => void> = [];
let scheduled = false;

/** Resolves at a later iteration of the event loop than the one running, in the order the scripts paused. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      setImmediate(resumeOne);
    }
  });
}

function resumeOne(): void {
  waiting.shift()?.();
  // Scheduled from this check phase, the next resume runs in the next iteration, after the loop polled I/O.
  if (waiting.length > 0) setImmediate(resumeOne);
  else scheduled = false;
}
