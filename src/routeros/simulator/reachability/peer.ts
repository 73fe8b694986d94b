/**
 * The reachability check as a device applies it to whoever connects: a `router simulate` device answers a peer
 * only while its configuration leaves that peer's path open (the same check `plan` and the simulated back end
 * use). The path is resolved when the peer is first seen, on the configuration of that moment, which is how
 * that peer gets in; a path the model finds cut already then does not describe how it gets in, and is not
 * enforced (as for the simulated back end).
 */
import type { RouterState } from "../schema.js";
import { checkReachability, type ResolvedPath, resolvePath } from "./check.js";

/** The `/ip service` a listener stands for, whose configured port the peer's path is on. */
export type ListenerService = "api" | "api-ssl" | "www-ssl" | "ssh";

const DEFAULT_PORT: Readonly<Record<ListenerService, number>> = {
  api: 8728,
  "api-ssl": 8729,
  "www-ssl": 443,
  ssh: 22,
};

/** Why `peer` is cut off now, or undefined while it still gets in. */
export type PeerGate = (peer: string) => string | undefined;

export function peerGate(router: RouterState, service: ListenerService): PeerGate {
  const paths = new Map<string, ResolvedPath | undefined>();
  return (peer) => {
    if (!paths.has(peer)) {
      const item = router.table("ip-service").items.find((entry) => entry.values.name === service);
      const port = Number(item?.values.port ?? DEFAULT_PORT[service]);
      const path = resolvePath(router, { direction: "inbound", source: peer, protocol: "tcp", port });
      paths.set(peer, checkReachability(router, path).reachable ? path : undefined);
    }
    const path = paths.get(peer);
    if (!path) return undefined;
    const reach = checkReachability(router, path);
    return reach.reachable ? undefined : reach.reason;
  };
}
