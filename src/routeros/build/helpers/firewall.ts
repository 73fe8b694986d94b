import { removeWhere, upsert, without } from "./upsert.js";

/** Matchers and actions shared by filter and NAT rules, with RouterOS property names. */
export interface FirewallRuleProps {
  readonly chain: "input" | "forward" | "output" | "srcnat" | "dstnat" | (string & {});
  readonly action: string;
  /**
   * Identifies the rule for later runs (rules have no name), so it must be unique within the table; a prefix
   * such as `managed: ` keeps managed rules apart from hand-made ones.
   */
  readonly comment: string;
  readonly protocol?: string;
  readonly "src-address"?: string;
  readonly "dst-address"?: string;
  readonly "src-port"?: string | number;
  readonly "dst-port"?: string | number;
  readonly "src-address-list"?: string;
  readonly "dst-address-list"?: string;
  readonly "in-interface"?: string;
  readonly "out-interface"?: string;
  readonly "in-interface-list"?: string;
  readonly "out-interface-list"?: string;
  /** Such as `established,related`. */
  readonly "connection-state"?: string;
  readonly "jump-target"?: string;
  readonly log?: boolean;
  readonly "log-prefix"?: string;
  readonly disabled?: boolean;
}

export interface NatRuleProps extends FirewallRuleProps {
  readonly "to-addresses"?: string;
  readonly "to-ports"?: string | number;
}

/**
 * A filter rule, identified by its comment. A new rule is appended to the end of its chain; a rule that exists
 * is updated where it stands.
 */
export function firewallFilter(props: FirewallRuleProps): string {
  return upsert(["ip", "firewall", "filter"], { comment: props.comment }, without(props, "comment"));
}

/** A NAT rule, identified by its comment (see firewallFilter). */
export function firewallNat(props: NatRuleProps): string {
  return upsert(["ip", "firewall", "nat"], { comment: props.comment }, without(props, "comment"));
}

/** Removes the filter or NAT rules with this comment; for destroy scripts. */
export function removeFirewallRule(table: "filter" | "nat", comment: string): string {
  return removeWhere(["ip", "firewall", table], { comment });
}
