import { removeWhere, upsert, without } from "./upsert.js";

export interface IpAddressProps {
  /** Address with prefix length, e.g. `192.168.88.1/24`. */
  readonly address: string;
  readonly interface: string;
  readonly comment?: string;
  readonly disabled?: boolean;
}

/** An address on an interface; the pair (address, interface) identifies it. */
export function ipAddress(props: IpAddressProps): string {
  return upsert(
    ["ip", "address"],
    { address: props.address, interface: props.interface },
    without(props, "address", "interface"),
  );
}

export function removeIpAddress(props: Pick<IpAddressProps, "address" | "interface">): string {
  return removeWhere(["ip", "address"], { address: props.address, interface: props.interface });
}

export interface IpPoolProps {
  readonly name: string;
  /** Ranges such as `192.168.88.10-192.168.88.254`, several joined with commas. */
  readonly ranges: string | readonly string[];
  readonly comment?: string;
}

/** An address pool, identified by name. */
export function ipPool(props: IpPoolProps): string {
  const ranges = typeof props.ranges === "string" ? props.ranges : props.ranges.join(",");
  return upsert(["ip", "pool"], { name: props.name }, { ranges, comment: props.comment });
}

export interface AddressListProps {
  readonly list: string;
  /** An address, a prefix, a range or a DNS name. */
  readonly address: string;
  readonly comment?: string;
  /** Entry lifetime such as `1d`; a dynamic entry disappears after it. @default - permanent */
  readonly timeout?: string;
}

/** A firewall address-list entry, identified by (list, address). */
export function addressList(props: AddressListProps): string {
  return upsert(
    ["ip", "firewall", "address-list"],
    { list: props.list, address: props.address },
    without(props, "list", "address"),
  );
}
