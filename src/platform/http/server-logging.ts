/**
 * What our servers may write to their logs. Fastify's defaults would log a request's full URL (the receiver's
 * notify path holds a secret) and, for a request Node could not parse, the raw bytes received (an
 * Authorization header among them). These serializers keep both out.
 */
/** pino's levels, as `--log-level` takes them. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export interface LoggerOptions {
  readonly level: string;
  readonly stream?: NodeJS.WritableStream;
}

export interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  /** The matched route's pattern (`/notify/:secret`); no url when nothing matched. */
  readonly routeOptions?: { readonly url?: string | undefined };
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number };
}

/** Fastify `logger` options: `true` means info to stdout. `loggedUrl` hides secrets that travel in paths. */
export function serverLogger(
  logger: boolean | LoggerOptions,
  loggedUrl: (request: LoggedRequest) => string = (request) => request.url,
): false | object {
  if (logger === false) return false;
  return {
    ...(logger === true ? { level: "info" } : logger),
    serializers: {
      req: (request: LoggedRequest) => ({
        method: request.method,
        url: loggedUrl(request),
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
      // Node's parse errors carry `rawPacket`, the bytes received: never log them.
      err: (error: Error & { code?: string; statusCode?: number }) => ({
        type: error.name,
        message: error.message,
        ...(error.code ? { code: error.code } : {}),
        ...(error.statusCode ? { statusCode: error.statusCode } : {}),
        stack: error.stack,
      }),
    },
  };
}
