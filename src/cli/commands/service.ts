import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { parseDuration, parseRateLimit } from "../../contract/duration.js";
import { EnvironmentError, UsageError } from "../../errors.js";
import { restartAdvice } from "../../service/database/data-directory-lock.js";
import { writeLines } from "../output.js";
import { flagOrEnv } from "../settings/flag-or-env.js";
import type { ServiceFlags } from "../settings/service-flags.js";
import { serviceAdminCommands } from "./service-admin.js";

const DEFAULT_DATA = ".routerjobs/service";

/** What operator commands read to find the running service: written by the service at start. */
export const SERVICE_INFO_FILE = "service.json";

/**
 * `routerjobs service`: runs the router job execution service (and, as subcommands, operates a running one).
 * fastify and PGlite are imported inside the action, so other commands start fast.
 */
export function serviceCommand(): Command {
  // The run flags live on a default subcommand: commander would otherwise let the parent's --data swallow the
  // --data of `service token create --data DIR` when the root program does not use positional options.
  const command = new Command("service")
    .description("run the router job execution service, or operate a running one (see docs/service.md)")
    .addCommand(startCommand(), { isDefault: true });
  for (const sub of serviceAdminCommands()) command.addCommand(sub);
  return command;
}

function startCommand(): Command {
  return (
    new Command("start")
      .description("run the service with simulated routers (the default: `routerjobs service --listen ...`)")
      .option("--listen <host:port>", "address to listen on", "127.0.0.1:8443")
      .option("--data <dir>", "data directory: database, admin token, generated TLS files", DEFAULT_DATA)
      .option("--database <url>", "postgres://... to use PostgreSQL instead of PGlite in --data")
      .option("--seed <file>", "seed file (teams, tokens, routers), applied idempotently at start")
      .option("--tls-cert <file>", "PEM certificate chain to serve HTTPS with (with --tls-key)")
      .option("--tls-key <file>", "PEM private key of --tls-cert")
      .option("--tls-generate", "serve HTTPS with a local CA kept in --data (its path is printed)")
      .option("--rate-limit <n/duration>", "requests per API key per window, e.g. 60/1m", "60/1m")
      .option("--tick <duration>", "scheduler period for jobs without express execution", "10s")
      .option("--sync-timeout <duration>", "a synchronous command slower than this answers 504", "10s")
      .option(
        "--shutdown-grace <duration>",
        "on SIGTERM, running scripts may finish for this long, then their jobs fail (default 30s, env ROUTERJOBS_SHUTDOWN_GRACE)",
      )
      .option(
        "--job-timeout <duration>",
        "longest a job's backup and script may run, then it fails (default 1h)",
      )
      .option("--notify-ca-file <file>", "extra CA (PEM) trusted for notify_url")
      .option(
        "--notify-allow <cidr...>",
        "addresses or CIDR ranges notify_url may reach although internal (loopback, private, link-local are refused by default), e.g. 127.0.0.1 10.20.0.0/16",
      )
      .option("--admin-remote", "accept admin API calls from other hosts than loopback")
      .option("--no-portal", "do not serve the web portal at /portal")
      .option("--log-level <level>", "fatal, error, warn, info, debug, trace or silent", "warn")
      .addHelpText(
        "after",
        `
Examples:
  $ routerjobs service --listen 127.0.0.1:8443 --data ./svc --seed seed.json --tls-generate
  $ routerjobs service --database postgres://routerjobs@db/routerjobs --rate-limit 600/1m --tick 2s
  $ routerjobs service token create --team 1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b --data ./svc`,
      )
      // zod is loaded by this command only, not by every start of the CLI.
      .action(async (raw: Record<string, unknown>) =>
        runService((await import("../settings/service-flags.js")).parseServiceFlags(raw)),
      )
  );
}

function setting<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function runService(flags: ServiceFlags, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const [
    { resolveConfig },
    { startService, closeOnSignals },
    { readSeedFile },
    { SimulatedBackend },
    { DeviceBackend },
    { MixedBackend },
    tls,
  ] = await Promise.all([
    import("../../service/config.js"),
    import("../../service/server.js"),
    import("../../service/seed.js"),
    import("../../routeros/simulator/index.js"),
    import("../../service/routers/device-backend.js"),
    import("../../service/routers/mixed-backend.js"),
    import("../../platform/tls/certificates.js"),
  ]);
  const separator = flags.listen.lastIndexOf(":");
  const host = flags.listen.slice(0, separator).replace(/^\[|\]$/g, "");
  const port = Number(flags.listen.slice(separator + 1));
  const dataDir = resolve(flags.data);
  // Without the flag or the variable, the config's default applies.
  const shutdownGraceMs = flagOrEnv(
    "--shutdown-grace",
    "ROUTERJOBS_SHUTDOWN_GRACE",
    flags.shutdownGrace,
    env,
    parseDuration,
  );
  const config = setting(() =>
    resolveConfig({
      database: flags.database ?? join(dataDir, "pglite"),
      dataDir,
      ...(flags.notifyAllow ? { notifyAllow: flags.notifyAllow } : {}),
      rateLimit: parseRateLimit(flags.rateLimit ?? "60/1m", "--rate-limit"),
      tickMs: parseDuration(flags.tick ?? "10s", "--tick"),
      syncTimeoutMs: parseDuration(flags.syncTimeout ?? "10s", "--sync-timeout"),
      ...(shutdownGraceMs === undefined ? {} : { shutdownGraceMs }),
      ...(flags.jobTimeout ? { jobTimeoutMs: parseDuration(flags.jobTimeout, "--job-timeout") } : {}),
      adminRemote: flags.adminRemote ?? false,
      portal: flags.portal ?? true,
    }),
  );
  const notifyCa = flags.notifyCaFile
    ? await readUserFile(flags.notifyCaFile, "--notify-ca-file")
    : undefined;
  // Device passwords and CAs are read from the files the seed names, relative to the seed file.
  const seed = flags.seed ? await readSeedFile(flags.seed) : undefined;
  const service = await startService({
    config: { ...config, ...(notifyCa ? { notifyCa } : {}) },
    // Simulated routers and devices side by side: a router added with --address is a device.
    backend: new MixedBackend(new SimulatedBackend(), new DeviceBackend()),
    host,
    port,
    tls: flags.tlsCert
      ? await tls.readTlsFiles(flags.tlsCert, flags.tlsKey as string)
      : flags.tlsGenerate
        ? "generate"
        : undefined,
    logger: { level: flags.logLevel },
    ...(seed ? { seed } : {}),
  });
  const loopbackUrl = service.url.replace(/\/\/(0\.0\.0\.0|\[::\])/, "//127.0.0.1");
  await writeFile(
    join(dataDir, SERVICE_INFO_FILE),
    `${JSON.stringify({ url: loopbackUrl, caFile: service.caFile ?? null, pid: process.pid }, null, 2)}\n`,
  );
  writeLines([
    `routerjobs service listening on ${service.url} (${config.database.startsWith("postgres") ? "PostgreSQL" : "PGlite"})`,
    ...(service.caFile
      ? [`CA certificate: ${service.caFile} (clients: --ca-file or NODE_EXTRA_CA_CERTS)`]
      : []),
    ...(service.adminTokenFile ? [`admin token: ${service.adminTokenFile}`] : []),
  ]);
  const lost = await Promise.race([
    new Promise<undefined>((done) => closeOnSignals(service, () => done(undefined))),
    service.app.databaseLost,
  ]);
  if (lost) throw new EnvironmentError(`${lost.message}; ${restartAdvice(lost)}`);
}

async function readUserFile(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(error as Error).message}`);
  }
}
