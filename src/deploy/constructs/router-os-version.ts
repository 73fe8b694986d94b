import type { IConstruct } from "constructs";
import {
  commandTreeFor,
  DEFAULT_ROUTEROS_VERSION,
  isRouterOsVersion,
} from "../../routeros/catalog/command-tree.js";
import { frameworkOf } from "./framework.js";

const WARNING = "@cdktf/warn";

/**
 * Notes on `construct`, as a warning that `cdktf synth` / `cdktn synth` prints (both frameworks write `@cdktf/warn`), that its scripts are checked against
 * another version's command tree than the one asked for. Once per router: a RouterConfig warns for all its
 * sections, and a section warns only when it asks for another version than its RouterConfig.
 */
export function noteVersionFallback(
  construct: IConstruct,
  routerOsVersion: string = DEFAULT_ROUTEROS_VERSION,
  checkCommands = true,
): void {
  // A malformed version is a validation error, and unchecked scripts do not depend on the tree.
  if (!checkCommands || !isRouterOsVersion(routerOsVersion)) return;
  const tree = commandTreeFor(routerOsVersion);
  if (tree.fallbackFrom === undefined) return;
  const message =
    `routerOsVersion ${tree.fallbackFrom}: routerjobs has no command tree for RouterOS ${tree.fallbackFrom}, ` +
    `so its scripts are checked against RouterOS ${tree.version} instead ` +
    "(set checkCommands: false to check the syntax only)";
  const noted = construct.node.scopes.some((scope) =>
    scope.node.metadata.some((entry) => entry.type === WARNING && entry.data === message),
  );
  if (!noted) frameworkOf(construct).cdk.Annotations.of(construct).addWarning(message);
}
