/**
 * A vitest reporter for CI's recap (.ci/run): the errors of hooks and of whole files, which vitest's JSON report
 * leaves out. A beforeAll that throws there reads as its tests "skipped" with an empty message; this writes,
 * one JSON line per file, what was thrown, into the file ROUTERJOBS_SUITE_ERRORS names.
 */
import { appendFileSync } from "node:fs";
import { relative } from "node:path";

export default class SuiteErrors {
  onTestRunEnd(testModules, unhandledErrors) {
    const out = process.env.ROUTERJOBS_SUITE_ERRORS;
    if (!out) return;
    const describe = (error) =>
      `${error?.name ?? "Error"}: ${error?.message ?? String(error)}`.split("\n").slice(0, 6).join("\n");
    for (const module of testModules) {
      const errors = [...module.errors()];
      for (const suite of module.children.allSuites()) errors.push(...suite.errors());
      if (errors.length === 0) continue;
      const file = relative(process.cwd(), module.moduleId);
      appendFileSync(out, `${JSON.stringify({ file, errors: errors.map(describe) })}\n`);
    }
    if (unhandledErrors.length > 0)
      appendFileSync(
        out,
        `${JSON.stringify({ file: "(unhandled)", errors: unhandledErrors.map(describe) })}\n`,
      );
  }
}
