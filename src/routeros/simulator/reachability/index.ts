/** Whether the service still reaches a router after a change: the path, the check, the verdict. */
export {
  type ChangeReachability,
  checkChange,
  checkReachability,
  describePath,
  type Reachability,
  type ResolvedPath,
  resolvePath,
} from "./check.js";
export {
  DEFAULT_API_PORT,
  DEFAULT_OUTBOUND_PORT,
  type InboundPath,
  type OutboundPath,
  type ServicePath,
} from "./path.js";
export { type ListenerService, type PeerGate, peerGate } from "./peer.js";
