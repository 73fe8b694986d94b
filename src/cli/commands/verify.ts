import { Command } from "commander";
import { UsageError } from "../../errors.js";
import {
  addClientOptions,
  CLIENT_ENV_HELP,
  type ClientFlags,
  readFlagFile,
  withClient,
} from "../settings/client-options.js";
import { untilInterrupted } from "../until-stopped.js";

const HELP = `
What Terraform runs for the gate after each wave of a Fleet rollout (local-exec), once every job of the wave
completed: waits the soak time, then runs the wave's read-only check script on each router of the wave through
the synchronous endpoint, and prints each router's result. Exits 0 when every check passed, 1 when any failed
(Terraform then creates nothing of the next wave), 2 when the check JSON is invalid. See docs/constructs.md,
"Rollouts".

The check comes from ROUTERJOBS_VERIFY (JSON written by the constructs) or --check-file FILE.
${CLIENT_ENV_HELP}`;

interface VerifyFlags extends ClientFlags {
  readonly checkFile?: string;
}

export function verifyCommand(): Command {
  return addClientOptions(new Command("verify"))
    .description("check the routers of a finished rollout wave before the next wave starts")
    .option("--check-file <file>", "read the check JSON from FILE instead of ROUTERJOBS_VERIFY")
    .addHelpText("after", HELP)
    .action(async (_options: VerifyFlags, command: Command) => {
      const flags = command.optsWithGlobals<VerifyFlags>();
      const [{ parseWaveCheck, WAVE_CHECK_ENV }, { verifyWave }] = await Promise.all([
        import("../../contract/wave-check.js"),
        import("../../deploy/apply/verify.js"),
      ]);
      const text = flags.checkFile
        ? await readFlagFile(flags.checkFile, "--check-file")
        : process.env[WAVE_CHECK_ENV];
      if (!text) throw new UsageError(`no check: set ${WAVE_CHECK_ENV} or pass --check-file FILE`);
      const check = parseWaveCheck(text);
      await untilInterrupted("interrupted; the next apply checks the wave again", (signal) =>
        withClient(command, (client) =>
          verifyWave(check, {
            client,
            write: (line) => process.stdout.write(`${line}\n`),
            signal,
          }),
        ),
      );
    });
}
