/**
 * A small office fleet: every router gets the same sections, filled in with its own values (name, site,
 * LAN subnet). Sections of one router run in order; routers run in parallel.
 */
import type { Construct } from "constructs";
import {
  checks,
  Fleet,
  type FleetRouter,
  type RouterSection,
  helpers as ros,
  type WaitMode,
} from "../../src/deploy/constructs/index.js";

export interface OfficeRouter {
  /** The router's id at the service (a lowercase UUID). */
  readonly id: string;
  /** Construct id and identity, such as `office-1`. */
  readonly name: string;
  /** Site name, used in the DHCP domain and in comments. @default name */
  readonly site?: string;
  /** First three octets of the office's /24 LAN, such as `192.168.10`. */
  readonly lanPrefix: string;
}

export interface OfficeFleetOptions {
  readonly routers: readonly OfficeRouter[];
  /** The command that runs `apply`, such as `npx routerjobs`. @default "routerjobs" */
  readonly cli?: string;
  readonly waitFor?: WaitMode;
  readonly expressExecute?: boolean;
  /**
   * `changed` is the configuration after one edit: the first router's firewall also accepts WinBox from the
   * admins list. A redeploy then replaces (and so re-runs) that one job and nothing else.
   * @default "initial"
   */
  readonly variant?: "initial" | "changed";
  /**
   * Roll the change out with a canary: the first router alone, then the others once its jobs completed (and,
   * with `check`, once the canary still holds its LAN address and uplink).
   * @default false: every router at once
   */
  readonly canary?: boolean;
  /** With `canary`: the read-only check between the waves. @default false */
  readonly check?: boolean;
}

/** Which job `variant: "changed"` touches, for demos that announce it. */
export const CHANGED = { routerIndex: 0, section: "firewall-input" } as const;

/** A router as the Fleet sees it: the construct props plus the values its sections read. */
export interface FleetEntry extends FleetRouter, Required<Pick<OfficeRouter, "site" | "lanPrefix">> {
  readonly changed: boolean;
}

const LAN_PREFIX = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){2}$/;

export function buildOfficeFleet(scope: Construct, options: OfficeFleetOptions): Fleet<FleetEntry> {
  const routers = options.routers.map((router, index): FleetEntry => {
    if (!LAN_PREFIX.test(router.lanPrefix)) {
      throw new Error(
        `router ${router.name}: lanPrefix must be three octets such as "192.168.10" (got ${JSON.stringify(router.lanPrefix)})`,
      );
    }
    return {
      name: router.name,
      routerId: router.id,
      site: router.site ?? router.name,
      lanPrefix: router.lanPrefix,
      changed: options.variant === "changed" && index === CHANGED.routerIndex,
    };
  });
  return new Fleet(scope, "offices", {
    routers,
    cli: options.cli,
    waitFor: options.waitFor,
    expressExecute: options.expressExecute,
    sections: officeSections,
    ...(options.canary
      ? {
          rollout: {
            waves: [1, "100%"],
            // The same script for every router: the checks read only names every office shares.
            ...(options.check ? { verify: [checks.interfaceRunning("ether1"), BRIDGE_CHECK] } : {}),
          },
        }
      : {}),
  });
}

/** The LAN bridge survived the change (an office whose bridge vanished has cut off its LAN). */
const BRIDGE_CHECK =
  ':if ([:len [/interface bridge find where name="bridge-lan"]] = 0) do={:error "bridge-lan is missing"}';

/** ether1 faces the internet; ether2..ether5 are bridged into the LAN. */
const LAN_PORTS = ["ether2", "ether3", "ether4", "ether5"];

function officeSections(router: FleetEntry): RouterSection[] {
  const lan = `${router.lanPrefix}.0/24`;
  const gateway = `${router.lanPrefix}.1`;
  return [
    { name: "identity", script: ros.identity(router.name) },
    {
      name: "interfaces",
      script: [
        ros.bridge({ name: "bridge-lan", comment: "managed: lan" }),
        ...LAN_PORTS.map((port) => ros.bridgePort({ bridge: "bridge-lan", interface: port })),
        ros.interfaceList({ name: "WAN" }),
        ros.interfaceList({ name: "LAN" }),
        ros.interfaceListMember({ list: "WAN", interface: "ether1" }),
        ros.interfaceListMember({ list: "LAN", interface: "bridge-lan" }),
      ],
    },
    {
      name: "addresses",
      script: ros.ipAddress({ address: `${gateway}/24`, interface: "bridge-lan", comment: "managed: lan" }),
    },
    {
      name: "dhcp",
      script: [
        ros.ipPool({ name: "lan", ranges: `${router.lanPrefix}.100-${router.lanPrefix}.199` }),
        ros.dhcpServer({ name: "lan", interface: "bridge-lan", "address-pool": "lan", "lease-time": "1d" }),
        ros.dhcpNetwork({
          address: lan,
          gateway,
          "dns-server": gateway,
          domain: `${router.site}.office.lan`,
        }),
      ],
    },
    {
      name: "address-lists",
      script: [
        ros.addressList({ list: "lan", address: lan, comment: `managed: ${router.site} lan` }),
        ros.addressList({ list: "admins", address: `${router.lanPrefix}.10`, comment: "managed: it desk" }),
      ],
    },
    { name: "firewall-input", script: inputRules(router.changed) },
    { name: "firewall-forward", script: forwardRules() },
  ];
}

/** What reaches the router itself: replies, ping and SSH from the admins list; nothing else from the WAN. */
function inputRules(changed: boolean): string[] {
  const rules = [
    ros.firewallFilter({
      chain: "input",
      action: "accept",
      "connection-state": "established,related",
      comment: "managed: in established",
    }),
    ros.firewallFilter({ chain: "input", action: "accept", protocol: "icmp", comment: "managed: in icmp" }),
    ros.firewallFilter({
      chain: "input",
      action: "accept",
      protocol: "tcp",
      "dst-port": 22,
      "src-address-list": "admins",
      comment: "managed: in ssh admins",
    }),
  ];
  if (changed) {
    rules.push(
      ros.firewallFilter({
        chain: "input",
        action: "accept",
        protocol: "tcp",
        "dst-port": 8291,
        "src-address-list": "admins",
        comment: "managed: in winbox admins",
      }),
    );
  }
  rules.push(
    ros.firewallFilter({
      chain: "input",
      action: "drop",
      "in-interface-list": "WAN",
      comment: "managed: in drop wan",
    }),
  );
  return rules;
}

/** Traffic through the router: replies pass, the LAN may go out, nothing else comes in from the WAN. */
function forwardRules(): string[] {
  return [
    ros.firewallFilter({
      chain: "forward",
      action: "accept",
      "connection-state": "established,related",
      comment: "managed: fwd established",
    }),
    ros.firewallFilter({
      chain: "forward",
      action: "drop",
      "connection-state": "invalid",
      comment: "managed: fwd drop invalid",
    }),
    ros.firewallFilter({
      chain: "forward",
      action: "accept",
      "src-address-list": "lan",
      "out-interface-list": "WAN",
      comment: "managed: fwd lan out",
    }),
    ros.firewallFilter({
      chain: "forward",
      action: "drop",
      "in-interface-list": "WAN",
      comment: "managed: fwd drop wan",
    }),
  ];
}
