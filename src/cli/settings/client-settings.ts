/**
 * The resolution of the shared connection settings (flag, then environment, then default) into
 * RouterJobsClient options. The token comes only from ROUTERJOBS_TOKEN or a file: a flag value would sit in the
 * process list, visible to every user of the machine. Free of commander, so that `routerjobs apply`'s lean
 * entry (apply-main.ts) uses it too.
 */
import { readFile } from "node:fs/promises";
import type { RouterJobsClient, RouterJobsClientOptions } from "../../client/index.js";
import { UsageError } from "../../errors.js";
import { flagOrEnv } from "./flag-or-env.js";

export interface ClientFlags {
  readonly url?: string;
  readonly api?: string;
  readonly tokenFile?: string;
  readonly caFile?: string;
  readonly rateLimit?: string;
  readonly timeout?: string;
  readonly token?: string;
  readonly verbose?: boolean;
}

/** Resolves flags and environment into client options; every problem is a UsageError naming the flag or variable. */
export async function resolveClientOptions(
  flags: ClientFlags,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RouterJobsClientOptions> {
  const [
    { parseServiceUrl },
    { parseDuration, parseRateLimit },
    { bearerTokenProblem },
    { defaultStateDir },
    { parseApiProfile },
  ] = await Promise.all([
    import("./service-url.js"),
    import("../../contract/duration.js"),
    import("../../contract/token.js"),
    import("../../client/state-dir.js"),
    import("../../contract/api-profile-name.js"),
  ]);
  if (flags.token !== undefined) {
    throw new UsageError(
      "--token is not accepted: command lines are visible to other users; set ROUTERJOBS_TOKEN or use --token-file FILE",
    );
  }
  const urlText = flags.url ?? env.ROUTERJOBS_URL;
  const urlSource = flags.url !== undefined ? "--url" : "ROUTERJOBS_URL";
  if (!urlText) throw new UsageError("no service URL: pass --url URL or set ROUTERJOBS_URL");
  const baseUrl = parseServiceUrl(urlText);
  if (baseUrl === undefined)
    throw new UsageError(`${urlSource} must be an http:// or https:// URL (got ${JSON.stringify(urlText)})`);

  const api = flagOrEnv("--api", "ROUTERJOBS_API", flags.api, env, parseApiProfile);
  const { token, tokenSource } = await readToken(flags.tokenFile, env);
  const tokenProblem = bearerTokenProblem(token);
  if (tokenProblem !== undefined)
    throw new UsageError(`the token in ${tokenSource} cannot be a bearer token: it ${tokenProblem}`);

  const deadlineMs = flagOrEnv("--timeout", "ROUTERJOBS_TIMEOUT", flags.timeout, env, parseDuration);
  const caFile = flags.caFile ?? (env.ROUTERJOBS_CA_FILE || undefined);
  const ca =
    caFile === undefined
      ? undefined
      : await readFlagFile(caFile, flags.caFile ? "--ca-file" : "ROUTERJOBS_CA_FILE");
  return {
    baseUrl,
    ...(api === undefined ? {} : { api }),
    token,
    ca,
    rateLimit: flagOrEnv("--rate-limit", "ROUTERJOBS_RATE_LIMIT", flags.rateLimit, env, parseRateLimit),
    budgetDir: defaultStateDir(env),
    ...(deadlineMs === undefined ? {} : { deadlineMs, requestTimeoutMs: Math.min(30_000, deadlineMs) }),
    logger: flags.verbose
      ? {
          debug: (message, fields) =>
            process.stderr.write(`routerjobs: ${message} ${JSON.stringify(fields ?? {})}\n`),
          warn: (message) => process.stderr.write(`routerjobs: warning: ${message}\n`),
        }
      : { warn: (message) => process.stderr.write(`routerjobs: warning: ${message}\n`) },
  };
}

/** Builds a client from resolved flags, runs `work`, and always closes the client. */
export async function withClientFromFlags<T>(
  flags: ClientFlags,
  work: (client: RouterJobsClient) => Promise<T>,
): Promise<T> {
  const options = await resolveClientOptions(flags);
  const { RouterJobsClient } = await import("../../client/client.js");
  const client = new RouterJobsClient(options);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

async function readToken(file: string | undefined, env: NodeJS.ProcessEnv) {
  if (file !== undefined)
    return { token: (await readFlagFile(file, "--token-file")).trim(), tokenSource: file };
  const token = env.ROUTERJOBS_TOKEN?.trim();
  if (!token) throw new UsageError("no API token: set ROUTERJOBS_TOKEN or pass --token-file FILE");
  return { token, tokenSource: "ROUTERJOBS_TOKEN" };
}

/** Reads a file named by a flag; a missing or unreadable file is the user's to fix, so a UsageError. */
export async function readFlagFile(file: string, flag: string): Promise<string> {
  try {
    return file === "-" ? await readStdin() : await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
