/**
 * The provider's configuration block and what it becomes: a RouterJobsClient. Each setting falls back to the
 * environment variable the CLI reads, so a stack that runs under `routerjobs deploy` today configures the
 * provider with nothing new. The token is never an attribute: it comes from ROUTERJOBS_TOKEN or `token_file`,
 * so it is in no configuration, plan or state.
 */
import { readFile } from "node:fs/promises";
import { RouterJobsClient } from "../../client/client.js";
import type { RouterJobsClientOptions } from "../../client/options.js";
import { defaultStateDir } from "../../client/state-dir.js";
import { parseApiProfile } from "../../contract/api-profile-name.js";
import { parseRateLimit } from "../../contract/duration.js";
import { bearerTokenProblem } from "../../contract/token.js";
import { UsageError } from "../../errors.js";
import { errorDiagnostic } from "./diagnostics.js";
import type { TfObject } from "./protocol/dynamic-value.js";
import type { WireMessage } from "./protocol/wire.js";
import { type BlockSpec, stringOf } from "./schema.js";

export const PROVIDER_SCHEMA: BlockSpec = {
  description: "routerjobs: RouterOS scripts run exactly once through a router job execution service.",
  attributes: [
    {
      name: "url",
      type: "string",
      optional: true,
      description: "The service's base URL (default: ROUTERJOBS_URL).",
    },
    {
      name: "ca_file",
      type: "string",
      optional: true,
      description: "PEM CA file for a service with a private certificate (default: ROUTERJOBS_CA_FILE).",
    },
    {
      name: "api_profile",
      type: "string",
      optional: true,
      description: "The job API the service speaks: spec or sdx (default: ROUTERJOBS_API, else spec).",
    },
    {
      name: "rate_limit",
      type: "string",
      optional: true,
      description: "The service's request rate for this token, like 60/1m (default: ROUTERJOBS_RATE_LIMIT).",
    },
    {
      name: "token_file",
      type: "string",
      optional: true,
      description: "File holding the API token (default: the ROUTERJOBS_TOKEN environment variable).",
    },
  ],
};

export interface ProviderContext {
  readonly client: RouterJobsClient;
  /** Fires when Terraform asks the provider to stop (StopProvider): waits end, jobs keep their markers. */
  readonly signal: AbortSignal;
}

const setting = (config: TfObject, name: string, env: string | undefined) =>
  stringOf(config, name) ?? (env || undefined);

export function validateProviderConfig(config: TfObject): WireMessage[] {
  const problems: WireMessage[] = [];
  const check = (name: string, test: (value: string) => void) => {
    const value = stringOf(config, name);
    if (value === undefined) return;
    try {
      test(value);
    } catch (error) {
      problems.push(errorDiagnostic(`${name}: ${(error as Error).message}`, "", name));
    }
  };
  check("url", parseUrl);
  check("api_profile", (value) => parseApiProfile(value, "api_profile"));
  check("rate_limit", (value) => parseRateLimit(value, "rate_limit"));
  return problems;
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`must be an http:// or https:// URL (got ${JSON.stringify(text)})`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new UsageError(`must be an http:// or https:// URL (got ${JSON.stringify(text)})`);
  return url;
}

async function readSettingFile(file: string, name: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new UsageError(
      `${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
}

export async function clientOptionsOf(
  config: TfObject,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RouterJobsClientOptions> {
  const urlText = setting(config, "url", env.ROUTERJOBS_URL);
  if (!urlText)
    throw new UsageError('no service URL: set url in the provider "routerjobs" block or ROUTERJOBS_URL');
  const baseUrl = parseUrl(urlText);
  const tokenFile = setting(config, "token_file", env.ROUTERJOBS_TOKEN_FILE);
  const token = tokenFile
    ? (await readSettingFile(tokenFile, "token_file")).trim()
    : (env.ROUTERJOBS_TOKEN?.trim() ?? "");
  if (!token) throw new UsageError("no API token: set ROUTERJOBS_TOKEN or token_file in the provider block");
  const problem = bearerTokenProblem(token);
  if (problem)
    throw new UsageError(`the API token ${tokenFile ? `in ${tokenFile}` : "in ROUTERJOBS_TOKEN"} ${problem}`);
  const caFile = setting(config, "ca_file", env.ROUTERJOBS_CA_FILE);
  const api = setting(config, "api_profile", env.ROUTERJOBS_API);
  const rateLimit = setting(config, "rate_limit", env.ROUTERJOBS_RATE_LIMIT);
  return {
    baseUrl,
    token,
    ...(api ? { api: parseApiProfile(api, "api_profile") } : {}),
    ...(caFile ? { ca: await readSettingFile(caFile, "ca_file") } : {}),
    ...(rateLimit ? { rateLimit: parseRateLimit(rateLimit, "rate_limit") } : {}),
    budgetDir: defaultStateDir(env),
    logger: { warn: (message) => process.stderr.write(`[WARN] routerjobs: ${message}\n`) },
  };
}

export async function configureProvider(config: TfObject, signal: AbortSignal): Promise<ProviderContext> {
  return { client: new RouterJobsClient(await clientOptionsOf(config)), signal };
}
