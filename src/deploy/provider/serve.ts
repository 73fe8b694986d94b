/**
 * `terraform-provider-routerjobs`: what the launcher that `routerjobs provider install` writes runs. One process
 * per Terraform run serves every resource of the run; it ends when Terraform asks (go-plugin's Shutdown) or
 * when Terraform is gone (an orphaned plugin would otherwise keep its port and a client open forever).
 */
import { generatePinnedTls } from "../../platform/tls/certificates.js";
import { configureProvider, PROVIDER_SCHEMA, validateProviderConfig } from "./config.js";
import { jobsDataSource, routerDataSource } from "./data-sources.js";
import { handshakeLine, readHandshakeEnvironment } from "./protocol/handshake.js";
import { startPluginServer } from "./protocol/server.js";
import { providerRpcs } from "./provider.js";
import { scriptResource } from "./script-resource.js";

const ORPHAN_CHECK_MS = 1000;

export async function serveProvider(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { clientCert } = readHandshakeEnvironment(env);
  const tls = clientCert
    ? { ...(await generatePinnedTls(["localhost", "127.0.0.1"])), clientCert }
    : undefined;
  const stopping = new AbortController();
  const rpcs = providerRpcs({
    schema: PROVIDER_SCHEMA,
    resources: [scriptResource()],
    dataSources: [routerDataSource, jobsDataSource],
    validateConfig: validateProviderConfig,
    configure: (config) => configureProvider(config, stopping.signal),
    stop: () => stopping.abort(),
  });
  const server = await startPluginServer({
    rpcs,
    tls,
    onShutdown: () => process.exit(0),
    onError: (method, error) =>
      process.stderr.write(`[ERROR] routerjobs: ${method}: ${(error as Error).message ?? String(error)}\n`),
  });
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, ORPHAN_CHECK_MS).unref();
  process.stdout.write(handshakeLine(server.address, tls?.cert));
}
