/**
 * `/system reset-configuration` as a RouterOS device runs it: the configuration goes back to a reset router's,
 * then the script file named by `run-after-reset` runs (an export: the way back to a saved configuration), and
 * the router reboots. `keep-users=yes` keeps the users. Without `no-defaults=yes` the model's default
 * configuration (defconf) is applied, as a device loads its own; a CHR has none. A device
 * without `skip-backup=yes` first saves an automatic backup; the simulator does not model that file.
 *
 * The file is checked before anything changes: a reset whose script is missing would leave a device with an
 * empty configuration and no way back, so the simulator refuses it, and callers check the file first.
 */
import { RouterOsError } from "../errors.js";
import type { CommandCall, CommandResult } from "../language/host.js";
import { type RouterState, valueText } from "./schema.js";

export const RESET_ARGUMENTS = [
  "caps-mode",
  "force-v6-to-v7-configuration-upgrade",
  "keep-apps",
  "keep-users",
  "no-defaults",
  "run-after-reset",
  "shutdown",
  "skip-backup",
] as const;

export async function resetConfiguration(call: CommandCall, router: RouterState): Promise<CommandResult> {
  const text = (name: string) => {
    const value = call.named.get(name);
    return value === undefined ? undefined : valueText(value);
  };
  const yes = (name: string) => text(name) === "yes" || text(name) === "true";
  if (yes("shutdown")) throw new RouterOsError("failure: shutdown is not available on the simulated router");
  const file = text("run-after-reset");
  const script = file === undefined || file === "" ? undefined : router.readFile(file);
  if (file !== undefined && file !== "" && script === undefined)
    throw new RouterOsError(`failure: file ${file} not found`);
  router.resetConfiguration({ keepUsers: yes("keep-users"), noDefaults: yes("no-defaults") });
  router.log(["system", "info"], "configuration reset");
  if (script !== undefined) {
    try {
      await router.runSource(script);
      router.log(["system", "info"], `run-after-reset script ${file} done`);
    } catch (error) {
      if (!(error instanceof RouterOsError)) throw error;
      // As on a device: the script stops at its first error and what ran before it stays.
      router.log(["script", "error"], `run-after-reset script ${file}: ${error.message}`);
    }
  }
  router.requestReboot();
  return {};
}
