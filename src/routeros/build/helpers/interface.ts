import { upsert, without } from "./upsert.js";

export interface BridgeProps {
  readonly name: string;
  readonly "vlan-filtering"?: boolean;
  readonly comment?: string;
}

/** A bridge, identified by name. */
export function bridge(props: BridgeProps): string {
  return upsert(["interface", "bridge"], { name: props.name }, without(props, "name"));
}

export interface BridgePortProps {
  readonly bridge: string;
  readonly interface: string;
  /** Port VLAN id for untagged traffic. @default - RouterOS's (1) */
  readonly pvid?: number;
  readonly comment?: string;
}

/** A bridge port, identified by its interface (an interface belongs to one bridge at most). */
export function bridgePort(props: BridgePortProps): string {
  return upsert(["interface", "bridge", "port"], { interface: props.interface }, without(props, "interface"));
}

export interface VlanProps {
  readonly name: string;
  readonly "vlan-id": number;
  /** The parent interface carrying the tagged traffic. */
  readonly interface: string;
  readonly comment?: string;
}

/** A VLAN interface, identified by name. */
export function vlan(props: VlanProps): string {
  return upsert(["interface", "vlan"], { name: props.name }, without(props, "name"));
}

export interface InterfaceListProps {
  readonly name: string;
  readonly comment?: string;
}

/** An interface list (such as `WAN`, `LAN`), identified by name. */
export function interfaceList(props: InterfaceListProps): string {
  return upsert(["interface", "list"], { name: props.name }, without(props, "name"));
}

export interface InterfaceListMemberProps {
  readonly list: string;
  readonly interface: string;
  readonly comment?: string;
}

/** Membership of an interface in a list, identified by the pair. */
export function interfaceListMember(props: InterfaceListMemberProps): string {
  return upsert(
    ["interface", "list", "member"],
    { list: props.list, interface: props.interface },
    without(props, "list", "interface"),
  );
}
