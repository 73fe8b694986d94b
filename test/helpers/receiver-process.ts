/**
 * `routerjobs receiver` in a process of its own, as it runs in production (another process, often another
 * machine): for tests that need it apart (another clock) and benches that must not measure one event loop
 * doing two servers' work.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { TLS_FILE_NAMES } from "../../src/platform/tls/certificates.js";
import { RECEIVER_FILES } from "../../src/service/receiver/files.js";
import { type CliProcess, startCli } from "./cli.js";

export interface ReceiverProcess {
  readonly url: string;
  readonly notifyUrl: string;
  readonly readerToken: string;
  readonly ca: string;
  readonly process: CliProcess;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port with its data (generated secrets, CA) in `dataDir`. */
export async function startReceiverProcess(
  dataDir: string,
  env: Record<string, string> = {},
  nodeArgs: readonly string[] = [],
): Promise<ReceiverProcess> {
  const run = startCli(["receiver", "--listen", "127.0.0.1:0", "--data", dataDir], { env, nodeArgs });
  try {
    const url = await run.printed(/^receiver listening on (\S+)/m, "the receiver");
    const notifyUrl = await run.printed(/^notify_url: (\S+)$/m, "the receiver");
    const [readerToken, ca] = await Promise.all([
      readFile(join(dataDir, RECEIVER_FILES.readerToken), "utf8"),
      readFile(join(dataDir, TLS_FILE_NAMES.ca), "utf8"),
    ]);
    return { url, notifyUrl, readerToken: readerToken.trim(), ca, process: run, close: () => run.stop() };
  } catch (error) {
    await run.stop();
    throw error;
  }
}
