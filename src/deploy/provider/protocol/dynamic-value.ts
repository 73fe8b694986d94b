/**
 * Terraform's values on the wire (DynamicValue): MessagePack as cty writes it, where a value not known until
 * apply is MessagePack extension 0 (and, since Terraform 1.6, extension 12 for an unknown that carries
 * refinements, such as "not null"). Objects are maps keyed by attribute name; null is nil. UpgradeResourceState
 * hands the stored state over as JSON instead.
 */
import { decode, ExtensionCodec, encode } from "@msgpack/msgpack";
import { WireFormatError } from "./wire.js";

/** The one unknown value: its refinements are dropped (this provider never plans on them). */
export const UNKNOWN: unique symbol = Symbol("unknown");
export type Unknown = typeof UNKNOWN;

export type TfValue = null | string | number | boolean | Unknown | TfValue[] | TfObject;
export interface TfObject {
  [attribute: string]: TfValue;
}

const CTY_UNKNOWN = 0;
const CTY_REFINED_UNKNOWN = 12;

const codec = new ExtensionCodec();
for (const type of [CTY_UNKNOWN, CTY_REFINED_UNKNOWN])
  codec.register({
    type,
    // Written as cty writes it: extension 0 with one zero byte. Only the first registration encodes.
    encode: (value: unknown) => (type === CTY_UNKNOWN && value === UNKNOWN ? Uint8Array.of(0) : null),
    decode: () => UNKNOWN,
  });

export function encodeValue(value: TfValue): Uint8Array {
  return encode(value, { extensionCodec: codec, ignoreUndefined: false });
}

export function decodeValue(bytes: Uint8Array): TfValue {
  if (bytes.length === 0) return null;
  const decoded = decode(bytes, { extensionCodec: codec, useBigInt64: false });
  return checked(decoded, "value");
}

/** The stored state's JSON (no unknowns can be stored). */
export function decodeJsonValue(bytes: Uint8Array): TfValue {
  if (bytes.length === 0) return null;
  return checked(JSON.parse(new TextDecoder().decode(bytes)) as unknown, "state");
}

function checked(value: unknown, path: string): TfValue {
  if (value === null || value === UNKNOWN) return value;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return value;
  if (Array.isArray(value)) return value.map((item, index) => checked(item, `${path}[${index}]`));
  if (typeof value === "object" && !(value instanceof Uint8Array)) {
    const object: TfObject = {};
    for (const [key, item] of Object.entries(value)) object[key] = checked(item, `${path}.${key}`);
    return object;
  }
  throw new WireFormatError(`${path} is not a value this provider's schema has (${typeof value})`);
}

export function isKnownObject(value: TfValue): value is TfObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a value holds an unknown anywhere. */
export function hasUnknown(value: TfValue): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(hasUnknown);
  if (isKnownObject(value)) return Object.values(value).some(hasUnknown);
  return false;
}
