/**
 * The soak's service in a process of its own, so that the memory the soak samples is the service's alone
 * (issue 20: <= 200 MiB under the soak), not the bench's client, proxies and bookkeeping beside it:
 * `node bench/soak-service.mjs <settings.json>`. Plain JavaScript on the built service (dist/; `npm run bench`
 * builds first): tsx's loader would add its own thread, ~38 MiB, to what is measured.
 *
 * settings.json: `{ config, simulator, seed }`: resolveConfig's input, SimulatedBackend's options and the seed
 * (teams, tokens, routers). Prints `{"url": ...}` once it listens, the service's errors as log lines (a 500's
 * cause), and on SIGTERM `{"admitted": n, "limited": n}` (requests admitted and answered 429, counted in
 * memory) before it closes.
 */
import { readFileSync } from "node:fs";
import { SimulatedBackend } from "../dist/routeros/simulator/index.js";
import { resolveConfig } from "../dist/service/config.js";
import { startService } from "../dist/service/server.js";

const settings = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8"));
const service = await startService({
  config: resolveConfig(settings.config),
  backend: new SimulatedBackend(settings.simulator),
  host: "127.0.0.1",
  port: 0,
  logger: { level: "error" },
  seed: settings.seed,
});
process.stdout.write(`${JSON.stringify({ url: service.url })}\n`);

const total = (counts) => [...counts.values()].reduce((sum, count) => sum + count, 0);
process.once("SIGTERM", () => {
  const counts = {
    admitted: total(service.app.admittedRequests),
    limited: total(service.app.rateLimitedRequests),
  };
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  service.close().then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`closing: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
