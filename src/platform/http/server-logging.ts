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

const UUID = "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}";
/** An API token (`<token_id>:<team_id>:<secret>`) anywhere in a URL, its colons as written or percent-encoded. */
const TOKEN_IN_URL = new RegExp(`(${UUID})(?::|%3[Aa])${UUID}(?::|%3[Aa])[A-Za-z0-9]{62}`, "g");
/** Query parameters whose value is a credential by its name (`?token=`, `?access_token=`, `?api-key=`...). */
const CREDENTIAL_PARAMETER =
  /^(access[-_]?token|api[-_]?key|apikey|auth|authorization|bearer|code|key|password|secret|token)$/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

/**
 * A request's URL as our logs may hold it: an API token anywhere in it keeps only its id, and the value of a
 * query parameter named like a credential is replaced. Clients do put tokens there (`?token=`, a token pasted
 * into a path), and the request line is logged at info level.
 */
export function redactedUrl(url: string): string {
  const start = url.indexOf("?");
  const query =
    start < 0
      ? ""
      : url
          .slice(start)
          .replace(/([?&;])([^=&;#]*)=([^&;#]*)/g, (whole, separator: string, name: string) =>
            CREDENTIAL_PARAMETER.test(decoded(name)) ? `${separator}${name}=***` : whole,
          );
  return `${start < 0 ? url : url.slice(0, start)}${query}`.replace(TOKEN_IN_URL, "$1:***");
}

/**
 * Fastify `logger` options: `true` means info to stdout. `loggedUrl` hides secrets that travel in URLs; by
 * default `redactedUrl`.
 */
export function serverLogger(
  logger: boolean | LoggerOptions,
  loggedUrl: (request: LoggedRequest) => string = (request) => redactedUrl(request.url),
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
