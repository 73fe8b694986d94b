/**
 * How the service reaches a router, as the reachability check takes it: the connection the service opens to
 * the router's API (inbound), or, for the public service, the connection the router opens to it (outbound).
 * TCP always: every transport the service uses (API, API-SSL, REST over HTTPS, SSH) runs over it.
 */

/** The service connects to the router. */
export interface InboundPath {
  readonly direction: "inbound";
  /** The service's address as the router sees it; undefined: not known, so no rule on it is decided. */
  readonly source?: string;
  /** The router's address the service connects to; undefined: not known (addresses are not checked). */
  readonly destination?: string;
  readonly protocol: "tcp";
  /** The transport's port: 8729 API-SSL, 8728 API, 443 REST, 22 SSH. */
  readonly port: number;
  /** The router's physical port the service's packets arrive on (a bridge member), when it is known. */
  readonly ingressPort?: string;
}

/** The router connects to the service (the public service's model): its replies come back established. */
export interface OutboundPath {
  readonly direction: "outbound";
  /** The service's address; undefined: somewhere beyond the router's own networks. */
  readonly destination?: string;
  readonly protocol: "tcp";
  readonly port: number;
}

export type ServicePath = InboundPath | OutboundPath;

/** The API-SSL port the device back end connects to by default (src/contract/routers/device-endpoint.ts). */
export const DEFAULT_API_PORT = 8729;
/** HTTPS: the public service's own connection from the router. */
export const DEFAULT_OUTBOUND_PORT = 443;

/** `10.0.0.5 to tcp/8729`, or `the service to tcp/8729` when the source is not known. */
export function describePacket(from: string | undefined, protocol: string, port: number | undefined): string {
  return `${from ?? "the service"} to ${protocol}${port === undefined ? "" : `/${port}`}`;
}
