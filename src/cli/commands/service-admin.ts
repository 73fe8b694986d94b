import { readFile } from "node:fs/promises";
import { Command } from "commander";
import { UsageError } from "../../errors.js";
import { writeJson, writeLines } from "../output.js";
import type { AdminFlags } from "./service-admin-call.js";

/** undici and zod load only when an operator command runs, not at every start of the CLI. */
const callAdmin = async (...args: Parameters<typeof import("./service-admin-call.js").callAdmin>) =>
  (await import("./service-admin-call.js")).callAdmin(...args);

/** Operator commands: they talk to the running service's /admin API (PGlite allows one process per data dir). */
export function serviceAdminCommands(): Command[] {
  const token = new Command("token").description("API tokens");
  token.addCommand(
    adminCommand("create", "create an API token for a team (printed once; only its hash is stored)")
      .requiredOption("--team <uuid>", "team id (created if new)")
      .option("--customer <uuid>", "customer id of a new team (default: the team id)")
      .action(async (flags: AdminFlags & { team: string; customer?: string }) => {
        const data = await callAdmin(flags, "POST", "/tokens", {
          team_id: flags.team,
          ...(flags.customer ? { customer_id: flags.customer } : {}),
        });
        writeLines([String((data as { token: string }).token)]);
      }),
  );
  token.addCommand(
    adminCommand("revoke", "revoke an API token")
      .argument("<token-id>", "the first part of the token")
      .action(async (tokenId: string, flags: AdminFlags) => {
        // A whole token would travel in the URL and land, secret included, in the service's request log.
        if (tokenId.includes(":")) {
          throw new UsageError(
            "token revoke takes the token id (the part before the first ':'), not the token",
          );
        }
        writeJson(await callAdmin(flags, "DELETE", `/tokens/${tokenId}`));
      }),
  );

  const router = new Command("router").description("routers");
  router.addCommand(
    adminCommand("add", "add a router to a team")
      .requiredOption("--team <uuid>", "team id (created if new)")
      .requiredOption("--name <name>", "router name")
      .option("--id <uuid>", "router id (default: a new UUID)")
      .action(async (flags: AdminFlags & { team: string; name: string; id?: string }) => {
        const data = await callAdmin(flags, "POST", "/routers", {
          team_id: flags.team,
          name: flags.name,
          ...(flags.id ? { id: flags.id } : {}),
        });
        writeLines([String((data as { id: string }).id)]);
      }),
  );
  for (const [verb, description, method, suffix] of [
    ["remove", "remove a router; its open jobs become deleted", "DELETE", ""],
    ["offline", "take a router's tunnel down: its jobs wait", "POST", "/offline"],
    ["online", "bring a router's tunnel up: its waiting jobs run", "POST", "/online"],
  ] as const) {
    router.addCommand(
      adminCommand(verb, description)
        .argument("<router-id>", "router UUID")
        .action(async (routerId: string, flags: AdminFlags) => {
          writeJson(await callAdmin(flags, method, `/routers/${routerId}${suffix}`));
        }),
    );
  }

  const job = new Command("job").description("jobs");
  job.addCommand(
    adminCommand("delete", "delete a job that is not yet completed, failed or deleted")
      .argument("<job-id>", "job UUID")
      .action(async (jobId: string, flags: AdminFlags) => {
        writeJson(await callAdmin(flags, "DELETE", `/jobs/${jobId}`));
      }),
  );

  const seed = adminCommand("seed", "apply a seed file to the running service (idempotent)")
    .argument("<file>", "seed file (JSON, see docs/service.md)")
    .action(async (file: string, flags: AdminFlags) => {
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        throw new UsageError(`cannot read the seed file ${file}: ${(error as Error).message}`);
      }
      // Checked here as at `service --seed`: a bad file is a usage error naming the field, and nothing is sent.
      const { parseSeed } = await import("../../service/seed.js");
      writeJson(await callAdmin(flags, "POST", "/seed", parseSeed(text, file)));
    });
  const status = adminCommand("status", "jobs by status and notifications pending").action(
    async (flags: AdminFlags) => writeJson(await callAdmin(flags, "GET", "/status")),
  );
  return [token, router, job, seed, status];
}

function adminCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .option("--data <dir>", "the service's data directory (admin token, service.json)", ".routerjobs/service")
    .option("--url <url>", "the service's URL (default: from <data>/service.json)")
    .option("--ca-file <file>", "CA to trust for an HTTPS service (default: the one it generated)");
}
