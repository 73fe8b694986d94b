/**
 * The HTTP side of the operator commands, in its own module so that the CLI loads undici only when one runs.
 * Imported statically here: the CLI bundle turns a dynamic `import("undici")` (a CommonJS package) into a
 * module with a default export only, where `Agent` is undefined.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Agent, request } from "undici";
import { NetworkError } from "../../client/errors.js";
import { readErrorBody } from "../../contract/errors.js";
import { RouterjobsError, UsageError } from "../../errors.js";

/** The running service refused an operator command. */
export class ServiceAdminError extends RouterjobsError {
  override readonly name = "ServiceAdminError";
  override readonly code = "RJ_ERR_ADMIN";
}

/** Where the operator commands find the running service: its data directory, or a URL and a CA. */
export interface AdminFlags {
  url?: string;
  data: string;
  caFile?: string;
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${file} (is the service running with this --data?): ${(error as Error).message}`,
    );
  }
}

/** Calls the running service's /admin API with the admin token of `<data>/admin-token`; returns `data`. */
export async function callAdmin(
  flags: AdminFlags,
  method: "GET" | "POST" | "DELETE",
  path: string,
  body?: unknown,
): Promise<unknown> {
  const dataDir = resolve(flags.data);
  const adminToken = await readText(join(dataDir, "admin-token"), "the admin token");
  const info = flags.url
    ? { url: flags.url, caFile: null }
    : (JSON.parse(await readText(join(dataDir, "service.json"), "the service file")) as {
        url: string;
        caFile: string | null;
      });
  const caFile = flags.caFile ?? info.caFile;
  const dispatcher = new Agent(caFile ? { connect: { ca: await readText(caFile, "the CA file") } } : {});
  try {
    const response = await request(`${info.url.replace(/\/$/, "")}/admin${path}`, {
      method,
      dispatcher,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (response.statusCode >= 300) {
      const error = readErrorBody(parsed);
      const details = error?.details.map((detail) => `${detail.field}: ${detail.message}`) ?? [];
      throw new ServiceAdminError(
        [
          `the service answered ${response.statusCode}: ${error?.message ?? text.slice(0, 200)}`,
          ...details,
        ].join("; "),
      );
    }
    return (parsed as { data?: unknown } | undefined)?.data;
  } catch (error) {
    if (error instanceof RouterjobsError) throw error;
    // Exit 4 (network), as for every other command that cannot reach a server.
    throw new NetworkError(`cannot reach the service at ${info.url}: ${(error as Error).message}`, {
      requestSent: true,
      causeCode: (error as { code?: string }).code,
      cause: error,
    });
  } finally {
    await dispatcher.close();
  }
}
