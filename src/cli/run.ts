/**
 * The one top-level handler: parses, runs the command, and maps any error to an exit code and ONE line on
 * stderr (`routerjobs: <message>`). `--verbose` adds the error's code, HTTP status, request id and cause; a
 * stack trace appears only for an internal error, and only with --verbose. Commands never call process.exit.
 */
import { type Command, CommanderError } from "commander";
import { EXIT_CODES } from "./exit-codes.js";
import { reportError } from "./report-error.js";

export async function run(program: Command, argv: readonly string[]): Promise<number> {
  configure(program);
  try {
    await program.parseAsync(argv);
    return EXIT_CODES.ok;
  } catch (error) {
    // Commander has already printed its own message (through outputError below) or the help/version.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    return reportError(error, argv.includes("--verbose"));
  }
}

/** Applies error handling to every command: commander's messages become one `routerjobs:` line too. */
function configure(command: Command): void {
  command.exitOverride();
  command.configureOutput({
    outputError: (text, write) => {
      const message = text.replace(/^error: /, "").trim();
      write(
        `routerjobs: ${message} (see 'routerjobs ${command.parent ? `${command.name()} ` : ""}--help')\n`,
      );
    },
  });
  for (const sub of command.commands) configure(sub);
}
