/**
 * How a failed test's message reads in a one-line report (CI's recap in .ci/run, the flake hunt's list in
 * flake.mjs). A test or hook that passed vitest's deadline reports the placeholder "Error: STACK_TRACE_ERROR"
 * as its first line and where it was declared as its second (vitest 4 swaps the two in makeTimeoutError): the
 * two become one line that says what happened and where.
 */
function failureLines(message) {
  const lines = (message ?? "(no message)").split("\n");
  if (lines[0] !== "Error: STACK_TRACE_ERROR") return lines;
  const declared = (lines[1] ?? "").trim();
  return [`timed out (past the vitest deadline for a test or hook), declared ${declared}`, ...lines.slice(2)];
}

module.exports = { failureLines };
