/**
 * The HTTP side of the operator commands, in its own module so that the CLI loads undici only when one runs.
 * The HTTP core (src/client/http/request.ts) is imported statically here: the CLI bundle turns a dynamic import of
 * undici (a CommonJS package) into a module with a default export only.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { HttpOrigin, jsonOrUndefined } from "../client/http/request.js";
import { readErrorResponse } from "../client/response-errors.js";
import { RouterjobsError, UsageError } from "../errors.js";

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
  const service = new HttpOrigin({
    baseUrl: serviceUrl(info.url),
    peerName: "the service",
    peerSettings: { url: "--url", ca: "--ca-file" },
    ca: caFile ? await readText(caFile, "the CA file") : undefined,
    bearerToken: adminToken,
  });
  try {
    // A NetworkError or TimeoutError from the core exits 4, as for every command that cannot reach a server.
    const response = await service.send({
      method,
      path: `/admin${path}`,
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    if (response.statusCode >= 300) {
      const { body, message } = readErrorResponse(response.statusCode, response.text);
      const details = body?.details.map((detail) => `${detail.field}: ${detail.message}`) ?? [];
      throw new ServiceAdminError([`the admin API refused: ${message}`, ...details].join("; "));
    }
    return (jsonOrUndefined(response.text) as { data?: unknown } | undefined)?.data;
  } finally {
    await service.close();
  }
}

function serviceUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new UsageError(`the service URL is not a URL: ${text}`);
  }
}
