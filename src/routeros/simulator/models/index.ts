/**
 * Choosing a model: by its catalog name or an alias (product code, name on the box), without regard to case.
 * An unknown name is a usage error that lists the known models, since the name usually comes from a flag or
 * a seed file an operator typed.
 */
import { UsageError } from "../../../errors.js";
import { boards } from "./boards.js";
import type { RouterModel } from "./types.js";

export type { DefaultConfiguration, ModelPort, PortKind, RouterModel, SwitchChip } from "./types.js";

/** Every model the simulated router can be, the default first. */
export const routerModels: readonly RouterModel[] = boards;

/** The small board the simulated router has always been: a CHR with five ports and no defconf. */
export const DEFAULT_MODEL: RouterModel = boards[0] as RouterModel;

const byName = new Map<string, RouterModel>(
  boards.flatMap((model) => [model.name, ...model.aliases].map((name) => [name.toLowerCase(), model])),
);

/** The names `--model` and seeds take, for help texts and error messages. */
export const modelNames: readonly string[] = boards.map((model) => model.name);

export function findModel(name: string): RouterModel | undefined {
  return byName.get(name.toLowerCase());
}

/** The model called `name`; a UsageError naming the known models when there is none. */
export function modelNamed(name: string): RouterModel {
  const model = findModel(name);
  if (!model) {
    throw new UsageError(`unknown router model "${name}": known models are ${modelNames.join(", ")}`);
  }
  return model;
}
