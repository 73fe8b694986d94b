/** The CLI entry (bin/routerjobs.js imports the built copy). */
import { buildProgram } from "./index.js";
import { run } from "./run.js";

process.exitCode = await run(buildProgram(), process.argv);
