import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Command } from "commander";
import { EnvironmentError, UsageError } from "../../errors.js";
import { LOG_LEVELS } from "../../platform/http/server-logging.js";
import { restartAdvice } from "../../service/database/data-directory-lock.js";
import { RECEIVER_FILES } from "../../service/receiver/files.js";
import { formatTable, writeJson, writeLines } from "../output.js";
import { parseListen, type ReceiverFlags } from "../settings/receiver-flags.js";
import { untilStopped } from "../until-stopped.js";

const ENV_HELP = `
Secrets (environment variables keep them out of the process list, where flags are visible):
  ROUTERJOBS_RECEIVER_SECRET          path secret(s) of notify_url, space-separated for a rotation, as --secret
  ROUTERJOBS_RECEIVER_SIGNING_SECRET  whsec_ signing secret(s), space-separated, as --signing-secret
  ROUTERJOBS_RECEIVER_TOKEN           token of the wait API (default: generated into <data>/reader-token)`;

/** `routerjobs receiver`: the notification receiver; `routerjobs receiver status`: what it heard lately. */
export function receiverCommand(): Command {
  const command = new Command("receiver")
    .description("receive job status notifications over HTTPS and let `apply` wait on them")
    .option("--listen <host:port>", "address to listen on", "127.0.0.1:8444")
    .option("--data <dir>", "data directory: database, generated secrets, reader token, local CA (required)")
    .option(
      "--database <url>",
      "postgres://... to share state between several instances (default: PGlite in --data)",
    )
    .option("--tls-cert <file>", "PEM certificate (default: a local CA and certificate in --data)")
    .option("--tls-key <file>", "PEM private key of --tls-cert")
    .option("--secret <secret>", "accepted path secret, repeatable (prefer the env variable)", collect, [])
    .option(
      "--signing-secret <whsec>",
      "Standard Webhooks secret, repeatable (prefer the env variable)",
      collect,
      [],
    )
    .option("--public-url <url>", "https base URL the service reaches this receiver at (a load balancer)")
    .option(
      "--log-level <level>",
      `${LOG_LEVELS.join(", ")}; requests are logged by route, never with a secret`,
      "warn",
    )
    .addHelpText(
      "after",
      `${ENV_HELP}

Examples:
  $ routerjobs receiver --listen 127.0.0.1:8444 --data ./receiver
  $ ROUTERJOBS_RECEIVER_SECRET=... routerjobs receiver --listen 0.0.0.0:8444 --data /var/lib/rj \\
      --database postgres://rj@db/rj --public-url https://hooks.example.net`,
    )
    .action(async (raw: Record<string, unknown>) =>
      runReceiver((await import("../settings/receiver-flags.js")).parseReceiverFlags(raw)),
    );
  command.addCommand(statusCommand());
  return command;
}

async function runReceiver(flags: ReceiverFlags, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { host, port } = parseListen(flags.listen);
  const pathSecrets = [...flags.secret, ...splitList(env.ROUTERJOBS_RECEIVER_SECRET)];
  const signingSecrets = [...flags.signingSecret, ...splitList(env.ROUTERJOBS_RECEIVER_SIGNING_SECRET)];
  if (flags.secret.length + flags.signingSecret.length > 0) {
    process.stderr.write("routerjobs: warning: secrets on the command line are visible to other users\n");
  }
  const [{ startReceiver }, { readTlsFiles }] = await Promise.all([
    import("../../service/receiver/server.js"),
    import("../../platform/tls/certificates.js"),
  ]);
  const tls = flags.tlsCert && flags.tlsKey ? await readTlsFiles(flags.tlsCert, flags.tlsKey) : undefined;
  const receiver = await startReceiver({
    dataDir: flags.data,
    host,
    port,
    pathSecrets,
    signingSecrets,
    ...(flags.database ? { database: flags.database } : {}),
    ...(tls ? { tls } : {}),
    ...(env.ROUTERJOBS_RECEIVER_TOKEN ? { readerToken: env.ROUTERJOBS_RECEIVER_TOKEN } : {}),
    ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
    logger: { level: flags.logLevel },
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "EADDRINUSE" || error.code === "EACCES" || error.code === "EADDRNOTAVAIL") {
      throw new EnvironmentError(`cannot listen on ${flags.listen}: ${error.message}`);
    }
    throw error;
  });
  writeLines([
    `receiver listening on ${receiver.url} (${receiver.databaseKind})`,
    `notify_url: ${receiver.notifyUrl}`,
    `reader token: ${receiver.readerTokenFile ?? "from ROUTERJOBS_RECEIVER_TOKEN"}`,
    `CA certificate: ${receiver.caFile ?? flags.tlsCert}`,
    `signatures: ${signingSecrets.length > 0 ? "required (Standard Webhooks)" : "off (the path secret authenticates)"}`,
  ]);
  const lost = await Promise.race([untilStopped().then(() => undefined), receiver.databaseLost]);
  if (lost) {
    await receiver.close().catch(() => {});
    throw new EnvironmentError(`${lost.message}; ${restartAdvice(lost)}`);
  }
  process.stderr.write("routerjobs: receiver stopping: finishing requests in flight\n");
  await receiver.close();
}

interface StatusFlags {
  readonly url?: string;
  readonly data?: string;
  readonly router?: string;
  readonly limit: string;
  readonly caFile?: string;
  readonly readerTokenFile?: string;
  readonly json?: boolean;
}

function statusCommand(): Command {
  return new Command("status")
    .description("show the jobs the receiver heard of lately, newest first")
    .option("--url <url>", "receiver base URL (default: the one recorded in --data)")
    .option("--data <dir>", "the receiver's data directory: its URL, reader token and CA")
    .option("--router <id>", "only this router's jobs")
    .option("--limit <n>", "how many jobs, at most 100", "20")
    .option("--ca-file <file>", "PEM CA to trust (default: the local CA in --data)")
    .option("--reader-token-file <file>", "reader token file (default: env, then <data>/reader-token)")
    .option("--json", "print the jobs as JSON")
    .action(async (_own: StatusFlags, self: Command) => {
      // Unless the program turns on positional options, commander hands `--data` to the parent `receiver`
      // even when it follows `status`; the merged view finds it either way.
      const flags = self.optsWithGlobals<StatusFlags>();
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
        throw new UsageError(
          `--limit must be a whole number from 1 to 100 (got ${JSON.stringify(flags.limit)})`,
        );
      }
      const { ReceiverClient } = await import("../../service/receiver/wait-client.js");
      const client = new ReceiverClient(await resolveStatusConnection(flags));
      try {
        const jobs = await client.recentJobs({ limit, ...(flags.router ? { routerId: flags.router } : {}) });
        if (flags.json) writeJson(jobs);
        else {
          const rows = jobs.map((job) => ({
            router: job.router_id,
            seq: job.seq_id,
            status: job.status,
            description: job.description,
            heard: job.last_heard_at,
            error: job.error,
          }));
          writeLines(rows.length === 0 ? ["(no jobs heard)"] : formatTable(rows));
        }
      } finally {
        await client.close();
      }
    });
}

async function resolveStatusConnection(
  flags: StatusFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ url: string; readerToken: string; ca?: string }> {
  const inData = (name: string) => (flags.data ? join(flags.data, name) : undefined);
  const stateFile = inData(RECEIVER_FILES.state);
  const url =
    flags.url ??
    (stateFile && existsSync(stateFile)
      ? (JSON.parse(await readFile(stateFile, "utf8")) as { url: string }).url
      : undefined);
  if (!url)
    throw new UsageError("no receiver URL: pass --url URL, or --data DIR of a receiver started there");
  const tokenFile = flags.readerTokenFile ?? inData(RECEIVER_FILES.readerToken);
  const readerToken =
    (flags.readerTokenFile ? undefined : env.ROUTERJOBS_RECEIVER_TOKEN) ??
    (tokenFile && (await readFile(tokenFile, "utf8").catch(() => undefined))?.trim());
  if (!readerToken) {
    throw new UsageError(
      "no reader token: set ROUTERJOBS_RECEIVER_TOKEN, or pass --reader-token-file FILE or --data DIR",
    );
  }
  const { TLS_FILE_NAMES } = await import("../../platform/tls/certificates.js");
  const caFile = flags.caFile ?? inData(TLS_FILE_NAMES.ca);
  const ca = caFile && existsSync(caFile) ? await readFile(caFile, "utf8") : undefined;
  if (flags.caFile && !ca) throw new UsageError(`--ca-file ${flags.caFile} does not exist`);
  return { url, readerToken, ...(ca ? { ca } : {}) };
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function splitList(value: string | undefined): string[] {
  return value ? value.split(/[\s,]+/).filter(Boolean) : [];
}
