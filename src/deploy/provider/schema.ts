/**
 * Schemas as this provider declares them, and what Terraform gets of them: attributes with their cty type
 * (sent as the type's JSON), whether the configuration sets them, whether the provider computes them, and
 * which change replaces the resource. Values travel as whole objects with every attribute present.
 */

import { isKnownObject, type TfObject, type TfValue, UNKNOWN } from "./protocol/dynamic-value.js";
import type { WireMessage } from "./protocol/wire.js";

/** A primitive, or a collection in cty's JSON form, like `["list", ["object", { id: "string" }]]`. */
export type AttributeType = "string" | "number" | "bool" | readonly [string, unknown];

export interface AttributeSpec {
  readonly name: string;
  readonly type: AttributeType;
  readonly description: string;
  readonly required?: boolean;
  readonly optional?: boolean;
  readonly computed?: boolean;
  readonly sensitive?: boolean;
  /** A change of it replaces the resource (a new job); others are updated in place. */
  readonly replaces?: boolean;
  /**
   * An imported object leaves it null (the job list does not hold it): the configuration's value is then taken
   * into the state without a new job.
   */
  readonly adopts?: boolean;
  /** Planned when the configuration leaves it out (the attribute is then optional and computed). */
  readonly default?: TfValue;
}

export interface BlockSpec {
  readonly description: string;
  readonly attributes: readonly AttributeSpec[];
}

const encoder = new TextEncoder();

export function wireSchema(block: BlockSpec, version = 0): WireMessage {
  return {
    version,
    block: {
      version,
      description: block.description,
      attributes: block.attributes.map((attribute) => ({
        name: attribute.name,
        type: encoder.encode(JSON.stringify(attribute.type)),
        description: attribute.description,
        required: attribute.required === true,
        optional: attribute.optional === true || attribute.default !== undefined,
        computed: attribute.computed === true || attribute.default !== undefined,
        sensitive: attribute.sensitive === true,
      })),
    },
  };
}

/** The value as the schema's object: every attribute present (null when absent), nothing else. */
export function conform(block: BlockSpec, value: TfValue): TfObject {
  const source = isKnownObject(value) ? value : {};
  const object: TfObject = {};
  for (const attribute of block.attributes) object[attribute.name] = source[attribute.name] ?? null;
  return object;
}

/**
 * The planned object of a new resource: the configuration, its defaults where it left them out, and every
 * attribute only the provider computes unknown until apply.
 */
export function plannedForCreate(block: BlockSpec, proposed: TfObject): TfObject {
  const planned = conform(block, proposed);
  for (const attribute of block.attributes) {
    if (planned[attribute.name] !== null) continue;
    if (attribute.default !== undefined) planned[attribute.name] = attribute.default;
    else if (attribute.computed) planned[attribute.name] = UNKNOWN;
  }
  return planned;
}

/** The attributes whose change replaces the resource, changed between two objects. */
export function replacingChanges(block: BlockSpec, prior: TfObject, planned: TfObject): string[] {
  return block.attributes
    .filter((attribute) => attribute.replaces && !sameValue(prior[attribute.name], planned[attribute.name]))
    .filter((attribute) => !(attribute.adopts && prior[attribute.name] === null))
    .map((attribute) => attribute.name);
}

function sameValue(a: TfValue | undefined, b: TfValue | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Typed reads of a decoded object; the schema already holds the type, so a mismatch is a bug, not input. */
export function stringOf(object: TfObject, name: string): string | undefined {
  const value = object[name];
  return typeof value === "string" ? value : undefined;
}

export function numberOf(object: TfObject, name: string): number | undefined {
  const value = object[name];
  return typeof value === "number" ? value : undefined;
}

export function boolOf(object: TfObject, name: string): boolean | undefined {
  const value = object[name];
  return typeof value === "boolean" ? value : undefined;
}
