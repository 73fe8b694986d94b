/** The CLI entry (bin/routerjobs.js imports the built copy). */
import { exitQuietlyOnClosedPipe } from "./closed-pipe.js";
import { buildProgram } from "./index.js";
import { run } from "./run.js";

exitQuietlyOnClosedPipe(process.stdout);
exitQuietlyOnClosedPipe(process.stderr);
process.exitCode = await run(buildProgram(), process.argv);
