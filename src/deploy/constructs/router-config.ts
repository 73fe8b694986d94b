import { Construct } from "constructs";
import type { Wave } from "../../contract/wave-check.js";
import { ConstructValidationError } from "./errors.js";
import type { RouterJobOptions, RouterSection, TerraformDependable } from "./props.js";
import { noteVersionFallback } from "./router-os-version.js";
import { RouterScript } from "./router-script.js";

export interface RouterConfigProps extends RouterJobOptions {
  /** The router's identifier at the service: a lowercase UUID. */
  readonly routerId: string;
  /**
   * The sections in the order their jobs run; more can be added with `addSection`.
   * @default - none
   */
  readonly sections?: readonly RouterSection[];
  /**
   * What the first section waits for; later sections wait for the section before them.
   * @default - none
   */
  readonly dependsOn?: readonly TerraformDependable[];
  /**
   * The rollout wave the router belongs to (a Fleet with `rollout` sets it), named in progress lines.
   * @default - not part of a rollout
   */
  readonly rolloutWave?: Wave;
}

/**
 * The configuration of one router as named sections. Each section is a RouterScript whose job waits for the
 * previous section's job, so the jobs of one router run in declaration order, and a change to one section
 * re-runs that section only.
 */
export class RouterConfig extends Construct implements TerraformDependable {
  readonly routerId: string;
  private readonly options: RouterJobOptions;
  private readonly firstDependsOn: readonly TerraformDependable[] | undefined;
  private readonly rolloutWave: Wave | undefined;
  private readonly ordered: RouterScript[] = [];

  constructor(scope: Construct, id: string, props: RouterConfigProps) {
    super(scope, id);
    const { routerId, sections, dependsOn, rolloutWave, ...options } = props;
    this.routerId = routerId;
    this.rolloutWave = rolloutWave;
    this.options = options;
    this.firstDependsOn = dependsOn;
    // Once for the router rather than once per section.
    noteVersionFallback(this, options.routerOsVersion, options.checkCommands);
    for (const section of sections ?? []) this.addSection(section);
  }

  /** Appends a section; its job runs after every section added before it. */
  addSection(section: RouterSection): RouterScript {
    const { name, ...content } = section;
    const previous = this.ordered.at(-1);
    const script = new RouterScript(this, name, {
      ...this.options,
      ...withoutUndefined(content),
      script: content.script,
      routerId: this.routerId,
      dependsOn: previous === undefined ? this.firstDependsOn : [previous],
      ...(this.rolloutWave === undefined ? {} : { rolloutWave: this.rolloutWave }),
    });
    this.ordered.push(script);
    return script;
  }

  /** The sections in job order. */
  get sections(): readonly RouterScript[] {
    return this.ordered;
  }

  /**
   * Depending on a RouterConfig means waiting for its last section, which itself waits for all the others.
   * Read when cdktf resolves `dependsOn`, so sections added later count.
   */
  get fqn(): string {
    const last = this.ordered.at(-1);
    if (last === undefined) {
      throw new ConstructValidationError(this.node.path, [
        { field: "sections", message: "must not be empty in a RouterConfig that something depends on" },
      ]);
    }
    return last.fqn;
  }
}

/** A section that writes `makeBackup: undefined` keeps the RouterConfig's value instead of erasing it. */
function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
