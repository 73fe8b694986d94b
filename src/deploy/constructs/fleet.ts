import { Construct } from "constructs";
import { ConstructValidationError } from "./errors.js";
import type { RouterJobOptions, RouterSection } from "./props.js";
import { type RolloutProps, resolveRollout } from "./rollout.js";
import { WaveGate } from "./rollout-gate.js";
import { RouterConfig, type RouterConfigProps } from "./router-config.js";

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
  /**
   * Roll the change out in waves (a canary first), with a check between waves; see RolloutProps.
   * @default - every router at once
   */
  readonly rollout?: RolloutProps<R>;
}

/**
 * The same configuration for many routers. Jobs of one router run in section order; jobs of different
 * routers do not wait for each other (Terraform's `-parallelism`, 10 by default, bounds how many run at once),
 * unless `rollout` splits them into waves.
 */
export class Fleet<R extends FleetRouter = FleetRouter> extends Construct {
  /** The RouterConfig of each router, by router name. */
  readonly configs: ReadonlyMap<string, RouterConfig>;
  /** The gate after each wave, in wave order (the last wave has one only with a check or a soak). */
  readonly gates: readonly WaveGate[];

  constructor(scope: Construct, id: string, props: FleetProps<R>) {
    super(scope, id);
    const { routers, sections, rollout, ...options } = props;
    this.checkUnique(routers);
    const configs = new Map<string, RouterConfig>();
    const build = (router: R, extra: Pick<RouterConfigProps, "dependsOn" | "rolloutWave" | "rollback">) =>
      configs.set(
        router.name,
        new RouterConfig(this, router.name, {
          ...options,
          routerOsVersion: router.routerOsVersion ?? options.routerOsVersion,
          routerId: router.routerId,
          sections: sections(router),
          ...extra,
        }),
      );
    const gates: WaveGate[] = [];
    if (rollout === undefined) {
      // Without a rollout the props are exactly today's, so the synthesized JSON does not change.
      for (const router of routers) build(router, {});
    } else {
      const resolved = resolveRollout(this.node.path, routers, rollout, options.routerOsVersion, options);
      // rollback-wave: a job that fails restores its own router (its apply); the gate restores the rest.
      const rollback = resolved.onFailure === "rollback-wave" ? { rollback: "on-failure" as const } : {};
      const waves = resolved.waves.length;
      resolved.waves.forEach((members, index) => {
        const wave = { wave: index + 1, waves };
        const previous = gates.at(-1);
        for (const member of members) {
          build(routers[member] as R, {
            rolloutWave: wave,
            ...(previous ? { dependsOn: [previous] } : {}),
            ...rollback,
          });
        }
        const checked = resolved.script !== undefined || resolved.soakMs > 0;
        // The last wave needs a gate only to check it: nothing comes after it to hold back.
        if (index === waves - 1 && !checked) return;
        const names = members.map((member) => (routers[member] as R).name);
        gates.push(
          new WaveGate(this, `rollout-wave-${wave.wave}`, {
            wave,
            configs: names.map((name) => ({ name, config: configs.get(name) as RouterConfig })),
            script: resolved.script,
            soakMs: resolved.soakMs,
            timeoutMs: resolved.timeoutMs,
            onFailure: resolved.onFailure,
            cli: options.cli ?? "routerjobs",
          }),
        );
      });
    }
    this.configs = configs;
    this.gates = gates;
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
