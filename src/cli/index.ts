/**
 * Wires the commands together; nothing else. Each command lives in `commands/<name>.ts` and exports a function
 * returning a commander `Command`. Commands import heavy modules (undici, zod, fastify, pglite, cdktf) only
 * inside their action, so that `routerjobs --version` and `--help` start fast.
 */
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { VERSION } from "../client/version.js";
import { applyCommand } from "./commands/apply.js";
import { backupsCommand } from "./commands/backups.js";
import { demoCommand } from "./commands/demo.js";
import { deployCommand } from "./commands/deploy.js";
import { execCommand } from "./commands/exec.js";
import { importCommand } from "./commands/import.js";
import { jobsCommand } from "./commands/jobs.js";
import { planCommand } from "./commands/plan.js";
import { providerCommand } from "./commands/provider.js";
import { receiverCommand } from "./commands/receiver.js";
import { reconcileCommand } from "./commands/reconcile.js";
import { routerCommand } from "./commands/router-simulate.js";
import { routersCommand } from "./commands/routers.js";
import { serviceCommand } from "./commands/service.js";
import { submitCommand } from "./commands/submit.js";
import { verifyCommand } from "./commands/verify.js";
import { addFlags } from "./settings/client-options.js";
import { GLOBAL_FLAGS } from "./settings/flag-table.js";

/**
 * Every command, in help order. To add one (service, receiver, apply, demo): write
 * `commands/<name>.ts` exporting `<name>Command(): Command`, import it above and list it here.
 */
const COMMANDS: ReadonlyArray<() => Command> = [
  execCommand,
  submitCommand,
  jobsCommand,
  backupsCommand,
  routersCommand,
  applyCommand,
  deployCommand,
  reconcileCommand,
  verifyCommand,
  planCommand,
  importCommand,
  providerCommand,
  receiverCommand,
  serviceCommand,
  demoCommand,
  routerCommand,
];

/** The package's folder: src/cli/ and dist/bundle/ are both two levels below it. */
const PACKAGE_ROOT = fileURLToPath(new URL("../..", import.meta.url));

export function buildProgram(): Command {
  const program = addFlags(new Command("routerjobs"), GLOBAL_FLAGS)
    .description("Run RouterOS scripts on routers through the router job execution service.")
    .version(VERSION, "-V, --version", "print the version")
    .helpCommand(false)
    .addHelpText(
      "after",
      `
Exit codes: 0 ok, 1 job or command failed, 2 usage or validation, 3 service refused, 4 network or timeout,
5 local environment, 70 internal error. See docs/errors.md.
The docs/ and examples/ that these helps name ship with routerjobs, in ${PACKAGE_ROOT}.

Examples:
  $ export ROUTERJOBS_URL=https://localhost:8443 ROUTERJOBS_TOKEN=...
  $ routerjobs exec <router> /system/identity/print
  $ routerjobs submit <router> --script-file change.rsc --description "add vlan 20"
  $ routerjobs jobs <router>`,
    );
  for (const command of COMMANDS) program.addCommand(command());
  return program;
}
