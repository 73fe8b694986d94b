import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { RouterjobsError, UsageError } from "../../errors.js";
import { writeJson, writeLines } from "../output.js";

/** The running service refused an operator command. */
export class ServiceAdminError extends RouterjobsError {
  override readonly name = "ServiceAdminError";
  override readonly code = "RJ_ERR_API";
}

interface AdminFlags {
  url?: string;
  data: string;
  caFile?: string;
}

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
      let body: unknown;
      try {
        body = JSON.parse(await readFile(file, "utf8"));
      } catch (error) {
        throw new UsageError(`cannot read the seed file ${file}: ${(error as Error).message}`);
      }
      writeJson(await callAdmin(flags, "POST", "/seed", body));
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

async function readText(file: string, what: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${file} (is the service running with this --data?): ${(error as Error).message}`,
    );
  }
}

async function callAdmin(flags: AdminFlags, method: string, path: string, body?: unknown): Promise<unknown> {
  const { Agent, request } = await import("undici");
  const dataDir = resolve(flags.data);
  const adminToken = await readText(join(dataDir, "admin-token"), "the admin token");
  const info = flags.url
    ? { url: flags.url, caFile: null }
    : (JSON.parse(await readText(join(dataDir, "service.json"), "the service file")) as {
        url: string;
        caFile: string | null;
      });
  const caFile = flags.caFile ?? info.caFile;
  const dispatcher = new Agent(caFile ? { connect: { ca: await readText(caFile, "the CA file") } } : {});
  try {
    const response = await request(`${info.url.replace(/\/$/, "")}/admin${path}`, {
      method: method as "GET",
      dispatcher,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (response.statusCode >= 300) {
      const { readErrorBody } = await import("../../contract/errors.js");
      const error = readErrorBody(parsed);
      const details = error?.details.map((detail) => `${detail.field}: ${detail.message}`) ?? [];
      throw new ServiceAdminError(
        [
          `the service answered ${response.statusCode}: ${error?.message ?? text.slice(0, 200)}`,
          ...details,
        ].join("; "),
      );
    }
    return (parsed as { data?: unknown } | undefined)?.data;
  } catch (error) {
    if (error instanceof RouterjobsError) throw error;
    throw new ServiceAdminError(`cannot reach the service at ${info.url}: ${(error as Error).message}`);
  } finally {
    await dispatcher.close();
  }
}
