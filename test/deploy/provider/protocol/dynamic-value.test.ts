import { encode } from "@msgpack/msgpack";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeJsonValue,
  decodeValue,
  encodeValue,
  hasUnknown,
  type TfValue,
  UNKNOWN,
} from "../../../../src/deploy/provider/protocol/dynamic-value.js";

const value: fc.Arbitrary<TfValue> = fc.letrec<{ value: TfValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.constant(UNKNOWN),
    fc.string(),
    fc.boolean(),
    fc.integer(),
    // cty numbers have no negative zero.
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("DynamicValue as cty's msgpack", () => {
  it("round-trips values with unknowns anywhere", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(decodeValue(encodeValue(v))).toEqual(v);
      }),
    );
  });

  it("writes an unknown as cty does (extension 0, one zero byte) and reads a refined unknown (extension 12)", () => {
    expect([...encodeValue(UNKNOWN)]).toEqual([0xd4, 0x00, 0x00]);
    // A refined unknown "not null, a string with prefix": extension 12 with a msgpack map inside.
    const refined = Uint8Array.from([0xc7, 0x03, 0x0c, 0x81, 0x01, 0xc3]);
    expect(decodeValue(refined)).toBe(UNKNOWN);
    const object = encode({ job_id: null, script: "x" });
    expect(decodeValue(object)).toEqual({ job_id: null, script: "x" });
    expect(hasUnknown({ a: [1, { b: UNKNOWN }] })).toBe(true);
    expect(hasUnknown({ a: [1, { b: null }] })).toBe(false);
  });

  it("reads the stored state's JSON, and empty bytes as null", () => {
    expect(decodeJsonValue(new TextEncoder().encode('{"id":"x","seq_id":3}'))).toEqual({
      id: "x",
      seq_id: 3,
    });
    expect(decodeValue(new Uint8Array(0))).toBeNull();
    expect(() => decodeValue(encode({ raw: new Uint8Array([1]) }))).toThrow(/value.raw is not a value/);
  });
});
