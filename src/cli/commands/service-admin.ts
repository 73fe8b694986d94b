import { Command } from "commander";
import { UsageError } from "../../errors.js";
import type { AdminFlags } from "../admin-call.js";
import { writeJson, writeLines } from "../output.js";
import type { DeviceFlags } from "../settings/service-device-flags.js";

/** undici and zod load only when an operator command runs, not at every start of the CLI. */
const callAdmin = async (...args: Parameters<typeof import("../admin-call.js").callAdmin>) =>
  (await import("../admin-call.js")).callAdmin(...args);

type RouterAddFlags = DeviceFlags & { team: string; name: string; id?: string };

/** Operator commands: they talk to the running service's /admin API (PGlite allows one process per data dir). */
export function serviceAdminCommands(): Command[] {
  const token = new Command("token").description("API tokens");
  token.addCommand(
    adminCommand("create", "create an API token for a team (printed once; only its hash is stored)")
      .requiredOption("--team <uuid>", "team id (created if new)")
      .option("--customer <uuid>", "customer id of a new team (default: the team id)")
      .option("--team-name <name>", "the team's name, which the portal shows (kept when left out)")
      .action(async (flags: AdminFlags & { team: string; customer?: string; teamName?: string }) => {
        const data = await callAdmin(flags, "POST", "/tokens", {
          team_id: flags.team,
          ...(flags.customer ? { customer_id: flags.customer } : {}),
          ...(flags.teamName ? { team_name: flags.teamName } : {}),
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
    adminCommand("add", "add a router to a team: simulated, or a real RouterOS device with --address")
      .requiredOption("--team <uuid>", "team id (created if new)")
      .requiredOption("--name <name>", "router name")
      .option("--id <uuid>", "router id (default: a new UUID)")
      .option(
        "--address <host[:port]>",
        "the device's RouterOS API (default port 8729 with TLS, 8728 plain; over REST 443, 80 plain; SSH 22)",
      )
      .option(
        "--transport <api|rest|ssh>",
        "drive the device over the RouterOS API (the default), its REST API or its console over SSH",
      )
      .option(
        "--ssh-host-key <SHA256:..>",
        "over SSH: pin the device's host key by its SHA-256 fingerprint (as ssh-keygen -l prints it)",
      )
      .option("--user <user>", "the RouterOS user the service logs in as")
      .option("--password-file <file>", "a file holding that user's password (never given as a flag)")
      .option("--tls-fingerprint <sha256:..>", "pin the device's certificate by its SHA-256 fingerprint")
      .option("--tls-ca <file>", "verify the device's certificate against this CA (PEM)")
      .option("--plaintext", "plain TCP (8728): the password crosses the network in clear text")
      .option(
        "--binary-backup",
        "a job's backup is also a binary backup (.backup) beside the export: passwords and certificates too",
      )
      .addHelpText(
        "after",
        `
Examples:
  $ routerjobs service router add --team T --name edge-1
  $ routerjobs service router add --team T --name edge-2 --address 192.0.2.1 --user routerjobs \\
      --password-file edge-2.password --tls-fingerprint sha256:AB:CD:...
  $ routerjobs service router add --team T --name edge-3 --address 192.0.2.3 --transport rest \
      --user routerjobs --password-file edge-3.password --tls-fingerprint sha256:AB:CD:...
  $ routerjobs service router add --team T --name edge-4 --address 192.0.2.4 --transport ssh \
      --user routerjobs --password-file edge-4.password --ssh-host-key SHA256:...`,
      )
      .action(async (flags: AdminFlags & RouterAddFlags) => {
        const { deviceFromFlags, PLAINTEXT_WARNING } = await import("../settings/service-device-flags.js");
        const device = await deviceFromFlags(flags);
        if (device?.plaintext) process.stderr.write(PLAINTEXT_WARNING);
        const data = await callAdmin(flags, "POST", "/routers", {
          team_id: flags.team,
          name: flags.name,
          ...(flags.id ? { id: flags.id } : {}),
          ...(device ? { device } : {}),
        });
        writeLines([String((data as { id: string }).id)]);
      }),
  );
  router.addCommand(
    adminCommand("show", "a router, and its device endpoint without the password")
      .argument("<router-id>", "router UUID")
      .action(async (routerId: string, flags: AdminFlags) => {
        writeJson(await callAdmin(flags, "GET", `/routers/${routerId}`));
      }),
  );
  for (const [verb, description, method, suffix] of [
    ["remove", "remove a router; its open jobs become deleted", "DELETE", ""],
    ["offline", "take a router's tunnel down: its jobs wait", "POST", "/offline"],
    ["online", "bring a router's tunnel up: its waiting jobs run", "POST", "/online"],
    [
      "forget-device",
      "make a device router simulated again (its endpoint and password are erased)",
      "DELETE",
      "/device",
    ],
  ] as const) {
    router.addCommand(
      adminCommand(verb, description)
        .argument("<router-id>", "router UUID")
        .action(async (routerId: string, flags: AdminFlags) => {
          writeJson(await callAdmin(flags, method, `/routers/${routerId}${suffix}`));
        }),
    );
  }

  router.addCommand(
    adminCommand(
      "reseal-passwords",
      "after a router key rotation: encrypt every device password again under the current key",
    ).action(async (flags: AdminFlags) => writeJson(await callAdmin(flags, "POST", "/router-key/reseal"))),
  );

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
      // Checked here as at `service --seed`: a bad file is a usage error naming the field, and nothing is sent.
      // Device passwords are read from the files the seed names and travel to the service over the admin API.
      const { readSeedFile } = await import("../../service/seed.js");
      writeJson(await callAdmin(flags, "POST", "/seed", await readSeedFile(file)));
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
