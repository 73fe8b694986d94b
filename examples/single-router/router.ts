/**
 * One router configured in three sections. Each section becomes one job; the jobs run in this order, and a
 * change to one section re-runs that section only.
 */
import type { Construct } from "constructs";
import { RouterConfig, helpers as ros } from "../../src/deploy/constructs/index.js";

export interface SingleRouterOptions {
  /** The router's id at the service (a lowercase UUID). */
  readonly routerId: string;
  /** The router's identity. @default "edge-1" */
  readonly name?: string;
  /** The command that runs `apply`, such as `npx routerjobs`. @default "routerjobs" */
  readonly cli?: string;
}

export function buildSingleRouter(scope: Construct, options: SingleRouterOptions): RouterConfig {
  const name = options.name ?? "edge-1";
  return new RouterConfig(scope, name, {
    routerId: options.routerId,
    cli: options.cli,
    sections: [
      { name: "identity", script: ros.identity(name) },
      {
        name: "lan-address",
        script: ros.ipAddress({ address: "192.168.88.1/24", interface: "ether2", comment: "managed: lan" }),
        // Runs on `terraform destroy`, and before a changed address is applied, so the old one goes first.
        destroyScript: ros.removeIpAddress({ address: "192.168.88.1/24", interface: "ether2" }),
      },
      {
        name: "time-and-dns",
        script: [
          ros.dnsServers({ servers: ["1.1.1.1", "9.9.9.9"], "allow-remote-requests": true }),
          ros.ntpClient({ servers: ["pool.ntp.org", "time.cloudflare.com"] }),
        ],
      },
    ],
  });
}
