/**
 * The entry bin/routerjobs.js takes for `routerjobs apply`: Terraform starts one per declared script, so its
 * start-up is paid once per job (issue 20). It loads what apply needs and nothing else: no commander, no other
 * command. A command line it does not read (help, a typo) goes to the full CLI, which answers as always.
 */
import { setFlagsFromString } from "node:v8";
import { parseApplyArgs } from "./apply-args.js";
import { exitQuietlyOnClosedPipe } from "./closed-pipe.js";
import { runApply } from "./commands/apply-run.js";
import { reportError } from "./report-error.js";

// undici parses HTTP with llhttp compiled to WebAssembly. Its parser function is hot on the first response, so
// V8 tiers it up to TurboFan: 0.08 s of CPU and 33 MiB of peak memory on Node 20 (0.03 s, 15 MiB on Node 22),
// a third of a whole apply, for a process that parses five responses. Liftoff's baseline code parses them as
// well. Set before the first connection compiles the module (undici compiles it lazily); docs/decisions.md.
setFlagsFromString("--liftoff-only");

const flags = parseApplyArgs(process.argv.slice(3));
if (flags === undefined) {
  await import("./main.js");
} else {
  exitQuietlyOnClosedPipe(process.stdout);
  exitQuietlyOnClosedPipe(process.stderr);
  try {
    await runApply(flags);
    process.exitCode = 0;
  } catch (error) {
    process.exitCode = reportError(error, flags.verbose === true);
  }
}
