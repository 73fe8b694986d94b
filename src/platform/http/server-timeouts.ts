/**
 * Socket deadlines for our HTTP servers (service and receiver), so that slow or idle clients (slowloris) lose
 * their socket instead of holding it. Node's own defaults (60 s for headers, 5 min for a request) are too
 * generous for servers that face the network.
 */
export interface ServerTimeouts {
  /** The whole request (headers and body) must arrive within this. @default 30 s */
  readonly requestTimeoutMs: number;
  /** The request headers must arrive within this. @default 10 s */
  readonly headersTimeoutMs: number;
  /** A socket with no traffic either way is closed after this; it must outlast the longest answer we hold back. @default 60 s */
  readonly connectionTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. @default 5 s */
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  connectionTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
};

/** The Fastify options for these deadlines; `server` goes into Fastify's `https` (or `http`) options. */
export function fastifyTimeouts(timeouts: ServerTimeouts) {
  return {
    requestTimeout: timeouts.requestTimeoutMs,
    connectionTimeout: timeouts.connectionTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    server: {
      headersTimeout: timeouts.headersTimeoutMs,
      // Node checks request and header deadlines on this period (default 30 s, far longer than the deadlines).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
    },
  };
}
