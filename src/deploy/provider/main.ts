/** The provider executable's entry: the launcher `routerjobs provider install` writes runs this file. */
import { serveProvider } from "./serve.js";

serveProvider().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
