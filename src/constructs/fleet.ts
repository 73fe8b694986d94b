import { Construct } from "constructs";
import { ConstructValidationError } from "./errors.js";
import type { RouterJobOptions, RouterSection } from "./props.js";
import { RouterConfig } from "./router-config.js";

/** One router of a fleet; extend it with the per-router values your sections need. */
export interface FleetRouter {
  /** Construct id of the router's RouterConfig, e.g. `edge-1`; unique in the fleet. */
  readonly name: string;
  /** The router's identifier at the service: a lowercase UUID, unique in the fleet. */
  readonly routerId: string;
  /**
   * This router's RouterOS version, when it differs from the fleet's `routerOsVersion`.
   * @default - the fleet's `routerOsVersion`
   */
  readonly routerOsVersion?: string;
}

export interface FleetProps<R extends FleetRouter> extends RouterJobOptions {
  /** The routers; each gets its own RouterConfig, and different routers' jobs run in parallel. */
  readonly routers: readonly R[];
  /** The sections of one router, computed from its values; they run in the order returned. */
  readonly sections: (router: R) => readonly RouterSection[];
}

/**
 * The same configuration for many routers. Jobs of one router run in section order; jobs of different
 * routers do not wait for each other (Terraform's `-parallelism`, 10 by default, bounds how many run at once).
 */
export class Fleet<R extends FleetRouter = FleetRouter> extends Construct {
  /** The RouterConfig of each router, by router name. */
  readonly configs: ReadonlyMap<string, RouterConfig>;

  constructor(scope: Construct, id: string, props: FleetProps<R>) {
    super(scope, id);
    const { routers, sections, ...options } = props;
    this.checkUnique(routers);
    const configs = new Map<string, RouterConfig>();
    for (const router of routers) {
      configs.set(
        router.name,
        new RouterConfig(this, router.name, {
          ...options,
          routerOsVersion: router.routerOsVersion ?? options.routerOsVersion,
          routerId: router.routerId,
          sections: sections(router),
        }),
      );
    }
    this.configs = configs;
  }

  /** Two entries for one router would race at the service instead of running in a declared order. */
  private checkUnique(routers: readonly FleetRouter[]): void {
    const seen = new Map<string, string>();
    const problems: { field: string; message: string }[] = [];
    for (const router of routers) {
      const first = seen.get(router.routerId);
      if (first !== undefined) {
        problems.push({
          field: "routers",
          message: `must name each router once (${router.routerId} is both ${first} and ${router.name})`,
        });
      }
      seen.set(router.routerId, router.name);
    }
    if (problems.length > 0) throw new ConstructValidationError(this.node.path, problems);
  }
}
