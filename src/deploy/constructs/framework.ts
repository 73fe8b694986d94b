import { createRequire } from "node:module";
import { join } from "node:path";
import type { IConstruct } from "constructs";
import { ConstructValidationError } from "./errors.js";

/**
 * The CDK framework a stack belongs to: CDK for Terraform (`cdktf`, archived) or its fork CDK Terrain
 * (`cdktn`, the same classes under a new name). Both are peer dependencies: routerjobs never brings its own
 * copy, because a resource built from one copy inside a stack of another crashes synth
 * (`_resetResolveDiscoveredProviderFeatureUsage is not a function`).
 *
 * So the framework is found per stack, at construct time, not at import time: the stack's class says which
 * framework made it (jsii stamps `cdktf.TerraformStack` or `cdktn.TerraformStack` on it), and the module is
 * the copy whose `TerraformStack` the stack really is an instance of. Every class or function the constructs
 * take from the framework comes from here. The types are cdktf's (a compile-time devDependency): cdktn 0.24
 * has the same shapes.
 */
export type CdkModule = typeof import("cdktf");
export type FrameworkName = "cdktf" | "cdktn";

export interface Framework {
  readonly name: FrameworkName;
  readonly cdk: CdkModule;
  /** Where the module was found, for messages. */
  readonly resolvedFrom: string;
}

const FRAMEWORKS: readonly FrameworkName[] = ["cdktn", "cdktf"];
// Shared by both frameworks (cdktn kept cdktf's symbols): a stack is recognised without loading either.
const STACK_SYMBOL = Symbol.for("cdktf/TerraformStack");
const JSII_RTTI = Symbol.for("jsii.rtti");

const byStack = new WeakMap<object, Framework>();

/** The framework of the stack that holds `scope`; a clear error if there is no stack or no matching copy. */
export function frameworkOf(scope: IConstruct): Framework {
  const stack = stackOf(scope);
  const known = byStack.get(stack);
  if (known !== undefined) return known;
  const framework = loadFrameworkOf(scope, stack);
  byStack.set(stack, framework);
  return framework;
}

function stackOf(scope: IConstruct): object {
  const stack = [...scope.node.scopes].reverse().find((node) => STACK_SYMBOL in node);
  if (stack === undefined) {
    throw new ConstructValidationError(scope.node.path, [
      {
        field: "scope",
        message: "is not inside a TerraformStack (of cdktf or cdktn): create the construct in a stack",
      },
    ]);
  }
  return stack;
}

/** `cdktf` or `cdktn` from the class's jsii stamp, inherited by an app's own subclass of TerraformStack. */
function stampedName(stack: object): FrameworkName | undefined {
  const rtti = (stack.constructor as { [JSII_RTTI]?: { fqn?: string } })[JSII_RTTI];
  const name = rtti?.fqn?.split(".")[0];
  return name === "cdktf" || name === "cdktn" ? name : undefined;
}

/**
 * Where to look: first from this package (with peer dependencies that is the app's own copy, hoisted next to
 * routerjobs), then from the working directory (an app run from its folder, when routerjobs is linked from
 * elsewhere and so resolves from another tree).
 */
function searchBases(): string[] {
  return [import.meta.url, join(process.cwd(), "routerjobs-resolve.js")];
}

function loadFrameworkOf(scope: IConstruct, stack: object): Framework {
  const stamped = stampedName(stack);
  const names =
    stamped === undefined ? FRAMEWORKS : [stamped, ...FRAMEWORKS.filter((name) => name !== stamped)];
  const tried: string[] = [];
  for (const name of names) {
    for (const base of searchBases()) {
      const found = tryRequire(base, name);
      if (found === undefined) continue;
      if (stack instanceof found.module.TerraformStack) {
        return { name, cdk: found.module, resolvedFrom: found.path };
      }
      tried.push(found.path);
    }
  }
  const seen =
    tried.length === 0 ? "neither cdktf nor cdktn could be loaded" : `other copies: ${tried.join(", ")}`;
  throw new ConstructValidationError(scope.node.path, [
    {
      field: "scope",
      message:
        `belongs to a ${stamped ?? "CDK"} stack whose framework copy routerjobs cannot load (${seen}); ` +
        "install cdktf or cdktn once, in the app (routerjobs takes it as a peer dependency)",
    },
  ]);
}

function tryRequire(base: string, name: string): { module: CdkModule; path: string } | undefined {
  const require = createRequire(base);
  let path: string;
  try {
    path = require.resolve(name);
  } catch {
    return undefined;
  }
  return { module: require(path) as CdkModule, path };
}

/** Loads a package that must resolve next to the framework copy (its providers import that copy). */
export function requireBeside<T>(framework: Framework, request: string): T | undefined {
  try {
    return createRequire(framework.resolvedFrom)(request) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

/** The provider types each stack is known to have, so that a fleet of scripts looks through the stack once. */
const providersOfStack = new WeakMap<IConstruct, Set<string>>();

/**
 * Adds the provider of Terraform type `type` to the stack that holds `scope` (`add` builds it there), unless the
 * stack has one already: a user's own, with its settings, is kept.
 */
export function ensureStackProvider(scope: IConstruct, type: string, add: (stack: IConstruct) => void): void {
  const { TerraformStack, TerraformProvider } = frameworkOf(scope).cdk;
  const stack = TerraformStack.of(scope as never);
  const known = providersOfStack.get(stack) ?? new Set<string>();
  providersOfStack.set(stack, known);
  if (known.has(type)) return;
  const present = stack.node
    .findAll()
    .some((node) => node instanceof TerraformProvider && node.terraformResourceType === type);
  if (!present) add(stack);
  known.add(type);
}
