import { UsageError } from "../../errors.js";
import { readFlagFile } from "./client-settings.js";

/**
 * The receiver a waiting command talks to, from the environment (Terraform's provisioners inherit it):
 * its URL, reader token, CA and the notify_url to hand to the service. Returns undefined when no receiver is
 * configured and `required` is false (wait_for "auto" then polls).
 */
export async function receiverFromEnv(required: boolean, env: NodeJS.ProcessEnv = process.env) {
  const url = env.ROUTERJOBS_RECEIVER_URL;
  const notifyUrl = env.ROUTERJOBS_NOTIFY_URL;
  if (!url || !notifyUrl) {
    if (!required) return undefined;
    throw new UsageError(
      "--wait-for receiver needs ROUTERJOBS_RECEIVER_URL and ROUTERJOBS_NOTIFY_URL (printed by 'routerjobs receiver')",
    );
  }
  const tokenFile = env.ROUTERJOBS_RECEIVER_TOKEN_FILE;
  const readerToken = tokenFile
    ? (await readFlagFile(tokenFile, "ROUTERJOBS_RECEIVER_TOKEN_FILE")).trim()
    : env.ROUTERJOBS_RECEIVER_TOKEN?.trim();
  if (!readerToken)
    throw new UsageError(
      "the receiver needs a reader token: set ROUTERJOBS_RECEIVER_TOKEN_FILE or ROUTERJOBS_RECEIVER_TOKEN",
    );
  const caFile = env.ROUTERJOBS_RECEIVER_CA_FILE || env.ROUTERJOBS_CA_FILE;
  const ca = caFile ? await readFlagFile(caFile, "ROUTERJOBS_RECEIVER_CA_FILE") : undefined;
  const { ReceiverClient } = await import("../../service/receiver/wait-client.js");
  try {
    return { client: new ReceiverClient({ url, readerToken, ...(ca ? { ca } : {}) }), notifyUrl };
  } catch (error) {
    throw new UsageError(`ROUTERJOBS_RECEIVER_URL: ${(error as Error).message}`);
  }
}
