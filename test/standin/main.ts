// Runs the stand-in as its own process: npx tsx test/standin/main.ts --config <json file>
// Prints one JSON line {"url", "ca"?} once listening; closes and exits on SIGTERM or SIGINT.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startStandIn } from "./standin.js";

const { values } = parseArgs({ options: { config: { type: "string" } } });
if (!values.config) {
  process.stderr.write("usage: main.ts --config <json file>\n");
  process.exit(2);
}
try {
  const standIn = await startStandIn(JSON.parse(readFileSync(values.config, "utf8")));
  process.stdout.write(
    `${JSON.stringify({ url: standIn.url, ...(standIn.ca ? { ca: standIn.ca } : {}) })}\n`,
  );
  const stop = () => void standIn.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
} catch (error) {
  process.stderr.write(`stand-in: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
