/**
 * The provider's configuration block and what it becomes: a RouterJobsClient. Each setting falls back to the
 * environment variable the CLI reads, so a stack that runs under `routerjobs deploy` today configures the
 * provider with nothing new. The token is never an attribute: it comes from ROUTERJOBS_TOKEN or `token_file`,
 * so it is in no configuration, plan or state.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { RouterJobsClient } from "../../client/client.js";
import type { RouterJobsClientOptions } from "../../client/options.js";
import { defaultStateDir } from "../../client/state-dir.js";
import { parseApiProfile } from "../../contract/api-profile-name.js";
import { parseRateLimit } from "../../contract/duration.js";
import { bearerTokenProblem } from "../../contract/token.js";
import { UsageError } from "../../errors.js";
import type { ServicePath } from "../../routeros/simulator/reachability/index.js";
import { ReceiverClient } from "../../service/receiver/wait-client.js";
import {
  parseAddress,
  parsePort,
  parseReachMode,
  parseRouterAddress,
  type RouterAddress,
  reachFor,
} from "../plan/reach-options.js";
import { errorDiagnostic } from "./diagnostics.js";
import { RouterJobLists } from "./job-lists.js";
import { PlanTwin, planMemoDir } from "./plan-twin.js";
import { isKnownObject, type TfObject } from "./protocol/dynamic-value.js";
import type { WireMessage } from "./protocol/wire.js";
import { type BlockSpec, boolOf, numberOf, stringOf } from "./schema.js";

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
    {
      name: "plan_twin",
      type: "bool",
      optional: true,
      description:
        "Show in the plan what each script that would run does to its router's twin (planned_changes), and fail " +
        "the plan when it would fail there: one export read per router with a script to run (default: true).",
    },
    {
      name: "reach",
      type: "string",
      optional: true,
      description:
        "How the service reaches the routers, checked on the twin after each script (a change that would cut " +
        "it off fails the plan): inbound (it connects to the router's API), outbound (the router connects " +
        "out to it), or off (default: ROUTERJOBS_REACH, else inbound).",
    },
    {
      name: "service_address",
      type: "string",
      optional: true,
      description:
        "The service's IPv4 address as the routers see its connections (default: ROUTERJOBS_SERVICE_ADDRESS); " +
        "without it, rules on the source address stay undecided.",
    },
    {
      name: "reach_port",
      type: "number",
      optional: true,
      description: "The port the service connects to (default 8729; 443 with reach = outbound).",
    },
    {
      name: "router_addresses",
      type: ["map", "string"],
      optional: true,
      description:
        "By router id, the address the service connects to: address[:port][@interface], like " +
        "10.0.0.1:8729@ether2 (default: each router's management address, learned from its configuration).",
    },
    {
      name: "wait_for",
      type: "string",
      optional: true,
      description:
        "How a job's end is confirmed: receiver, poll, or auto (the receiver when one is configured, else the " +
        "job list; default: auto).",
    },
    {
      name: "receiver_url",
      type: "string",
      optional: true,
      description:
        "The notification receiver that confirms jobs (default: ROUTERJOBS_RECEIVER_URL). Its notify URL holds " +
        "its path secret, so it only comes from ROUTERJOBS_NOTIFY_URL.",
    },
    {
      name: "receiver_ca_file",
      type: "string",
      optional: true,
      description: "PEM CA file of the receiver (default: ROUTERJOBS_RECEIVER_CA_FILE, else ca_file).",
    },
    {
      name: "receiver_token_file",
      type: "string",
      optional: true,
      description:
        "File holding the receiver's reader token (default: ROUTERJOBS_RECEIVER_TOKEN_FILE, else ROUTERJOBS_RECEIVER_TOKEN).",
    },
  ],
};

const WAIT_FOR = ["auto", "receiver", "poll"] as const;

export interface ProviderContext {
  readonly client: RouterJobsClient;
  /** Each router's job list, read once for the whole run. */
  readonly jobLists: RouterJobLists;
  /** Set when jobs are confirmed by the receiver's notifications (one request a job: the submission). */
  readonly receiver?: { readonly client: ReceiverClient; readonly notifyUrl: string } | undefined;
  /** Set unless plan_twin is false: the twin that plans each script that would run. */
  readonly twin?: PlanTwin | undefined;
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
  check("wait_for", parseWaitFor);
  try {
    reachOf(config, {});
  } catch (error) {
    if (!(error instanceof SettingError)) throw error;
    problems.push(errorDiagnostic(error.message, "", error.attribute));
  }
  check("receiver_url", (value) => {
    if (parseUrl(value).protocol !== "https:") throw new UsageError(`must be an https:// URL (got ${value})`);
  });
  return problems;
}

function parseWaitFor(text: string): (typeof WAIT_FOR)[number] {
  const found = WAIT_FOR.find((value) => value === text);
  if (!found) throw new UsageError(`must be one of ${WAIT_FOR.join(", ")} (got ${JSON.stringify(text)})`);
  return found;
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

/**
 * The receiver that confirms jobs, as `routerjobs apply` takes it from the environment, each setting also an
 * attribute: none under wait_for = "poll", or under "auto" when no receiver URL and notify URL are set.
 */
export async function receiverOf(
  config: TfObject,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ProviderContext["receiver"]> {
  const waitFor = parseWaitFor(stringOf(config, "wait_for") ?? "auto");
  if (waitFor === "poll") return undefined;
  const url = setting(config, "receiver_url", env.ROUTERJOBS_RECEIVER_URL);
  const notifyUrl = env.ROUTERJOBS_NOTIFY_URL || undefined;
  if (!url || !notifyUrl) {
    if (waitFor === "auto") return undefined;
    throw new UsageError(
      'wait_for = "receiver" needs receiver_url (or ROUTERJOBS_RECEIVER_URL) and ROUTERJOBS_NOTIFY_URL (printed by `routerjobs receiver`)',
    );
  }
  const tokenFile = setting(config, "receiver_token_file", env.ROUTERJOBS_RECEIVER_TOKEN_FILE);
  const readerToken = tokenFile
    ? (await readSettingFile(tokenFile, "receiver_token_file")).trim()
    : env.ROUTERJOBS_RECEIVER_TOKEN?.trim();
  if (!readerToken)
    throw new UsageError(
      "the receiver needs a reader token: set receiver_token_file, ROUTERJOBS_RECEIVER_TOKEN_FILE or ROUTERJOBS_RECEIVER_TOKEN",
    );
  const caFile =
    setting(config, "receiver_ca_file", env.ROUTERJOBS_RECEIVER_CA_FILE) ??
    setting(config, "ca_file", env.ROUTERJOBS_CA_FILE);
  const ca = caFile ? await readSettingFile(caFile, "receiver_ca_file") : undefined;
  try {
    return { client: new ReceiverClient({ url, readerToken, ...(ca ? { ca } : {}) }), notifyUrl };
  } catch (error) {
    throw new UsageError(`receiver_url: ${(error as Error).message}`);
  }
}

/**
 * The service's path to each router that the twin checks, as `routerjobs plan --reach` takes it; undefined with
 * reach = "off". Router addresses are keyed by router id (the provider resolves no names).
 */
export function reachOf(
  config: TfObject,
  env: NodeJS.ProcessEnv = process.env,
): ((routerId: string) => ServicePath) | undefined {
  const modeText = setting(config, "reach", env.ROUTERJOBS_REACH);
  const mode = modeText && parsedSetting("reach", () => parseReachMode(modeText, "reach"));
  const addressText = setting(config, "service_address", env.ROUTERJOBS_SERVICE_ADDRESS);
  const serviceAddress =
    addressText && parsedSetting("service_address", () => parseAddress(addressText, "service_address"));
  const port = numberOf(config, "reach_port");
  if (port !== undefined) parsedSetting("reach_port", () => parsePort(String(port), "reach_port"));
  const routers = new Map<string, RouterAddress>();
  const given = config.router_addresses;
  for (const [routerId, text] of Object.entries(isKnownObject(given ?? null) ? (given as TfObject) : {})) {
    if (typeof text !== "string") continue;
    const [, address] = parsedSetting("router_addresses", () =>
      parseRouterAddress(`${routerId}=${text}`, "router_addresses"),
    );
    routers.set(routerId, address);
  }
  return reachFor({
    ...(mode ? { mode } : {}),
    ...(serviceAddress ? { serviceAddress } : {}),
    ...(port === undefined ? {} : { port }),
    routers,
  });
}

/** A bad setting of the provider block, with the attribute a diagnostic points at. */
class SettingError extends UsageError {
  constructor(
    readonly attribute: string,
    message: string,
  ) {
    super(message);
  }
}

function parsedSetting<T>(attribute: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new SettingError(attribute, error.message);
  }
}

export async function configureProvider(config: TfObject, signal: AbortSignal): Promise<ProviderContext> {
  const client = new RouterJobsClient(await clientOptionsOf(config));
  const receiver = await receiverOf(config);
  const twin =
    boolOf(config, "plan_twin") === false
      ? undefined
      : new PlanTwin(client, await planMemoDir(join(defaultStateDir(), "provider-plans")), reachOf(config));
  return { client, jobLists: new RouterJobLists(client, signal), receiver, twin, signal };
}
