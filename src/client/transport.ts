/**
 * The API client's connection to the service: the project's HTTP core (src/client/http/request.ts) with the client's
 * settings. Budget, retries and the mapping of error statuses stay in the client.
 */
import { type CaOption, HttpOrigin } from "./http/request.js";

export interface TransportSettings {
  readonly baseUrl: URL;
  readonly ca: CaOption | undefined;
  readonly connectTimeoutMs: number;
}

export interface AttemptRequest {
  readonly method: "GET" | "POST" | "DELETE";
  /** Path below the base URL, starting with `/`. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

/** One origin, 8 connections kept alive: enough for one process's calls, few enough to spare the service. */
export class Transport extends HttpOrigin {
  constructor(settings: TransportSettings) {
    super({
      baseUrl: settings.baseUrl,
      peerName: "the service",
      peerSettings: { url: "ROUTERJOBS_URL or --url", ca: "ROUTERJOBS_CA_FILE or --ca-file" },
      ca: settings.ca,
      connectTimeoutMs: settings.connectTimeoutMs,
      connections: 8,
    });
  }
}
