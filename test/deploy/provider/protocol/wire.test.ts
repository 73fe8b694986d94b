import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as m from "../../../../src/deploy/provider/protocol/messages.js";
import {
  decodeMessage,
  encodeMessage,
  type MessageDescription,
  WireFormatError,
  type WireMessage,
} from "../../../../src/deploy/provider/protocol/wire.js";

const bytes = fc.uint8Array({ maxLength: 64 });
const diagnostic = fc.record({
  severity: fc.constantFrom(0, 1, 2),
  summary: fc.string(),
  detail: fc.string(),
  attribute: fc.record({
    steps: fc.array(
      fc.record({
        attribute_name: fc.string({ minLength: 1 }),
        element_key_string: fc.constant(""),
        element_key_int: fc.nat(),
      }),
      { maxLength: 3 },
    ),
  }),
});
const attribute = fc.record({
  name: fc.string(),
  type: bytes,
  description: fc.string(),
  required: fc.boolean(),
  optional: fc.boolean(),
  computed: fc.boolean(),
  sensitive: fc.boolean(),
  description_kind: fc.constantFrom(0, 1),
  deprecated: fc.boolean(),
  write_only: fc.boolean(),
});
const schema = fc.record({
  version: fc.nat(),
  block: fc.record({
    version: fc.nat(),
    attributes: fc.array(attribute, { maxLength: 4 }),
    description: fc.string(),
    description_kind: fc.constantFrom(0, 1),
    deprecated: fc.boolean(),
  }),
});

/** Decoding fills proto3's defaults; the round trip compares against the same message as decoded once. */
function roundTrips(description: MessageDescription, message: WireMessage): void {
  const once = decodeMessage(description, encodeMessage(description, message));
  const twice = decodeMessage(description, encodeMessage(description, once));
  expect(twice).toEqual(once);
}

describe("the protobuf wire codec", () => {
  it("round-trips diagnostics, schemas with maps, and dynamic values", () => {
    fc.assert(
      fc.property(fc.array(diagnostic, { maxLength: 3 }), (diagnostics) => {
        const once = decodeMessage(m.DiagnosticsOnly, encodeMessage(m.DiagnosticsOnly, { diagnostics }));
        expect(once.diagnostics).toEqual(diagnostics);
      }),
    );
    fc.assert(
      fc.property(schema, fc.dictionary(fc.string(), schema, { maxKeys: 3 }), (provider, resources) => {
        roundTrips(m.GetProviderSchemaResponse, { provider, resource_schemas: resources });
        const decoded = decodeMessage(
          m.GetProviderSchemaResponse,
          encodeMessage(m.GetProviderSchemaResponse, { provider, resource_schemas: resources }),
        );
        expect(Object.keys(decoded.resource_schemas as object).sort()).toEqual(Object.keys(resources).sort());
        expect(decoded.provider).toEqual(provider);
      }),
    );
    // A map key that names the prototype is a key like any other (the counterexample a CI run found).
    const block = { version: 0, attributes: [], description: "", description_kind: 0, deprecated: false };
    const schemaOf = { version: 0, block };
    // JSON.parse makes "__proto__" an own key, as a map from the wire must.
    const protoKeyed = JSON.parse(`{"__proto__":${JSON.stringify(schemaOf)}}`) as never;
    const decodedProto = decodeMessage(
      m.GetProviderSchemaResponse,
      encodeMessage(m.GetProviderSchemaResponse, { provider: schemaOf, resource_schemas: protoKeyed }),
    );
    expect(Object.keys(decodedProto.resource_schemas as object)).toEqual(["__proto__"]);
    fc.assert(
      fc.property(fc.string(), bytes, bytes, (type_name, msgpack, json) => {
        const request = {
          type_name,
          prior_state: { msgpack, json },
          config: { msgpack, json: new Uint8Array(0) },
        };
        const decoded = decodeMessage(
          m.PlanResourceChangeRequest,
          encodeMessage(m.PlanResourceChangeRequest, request),
        );
        expect(decoded.type_name).toBe(type_name);
        expect(decoded.prior_state).toEqual({ msgpack, json });
      }),
    );
  });

  it("encodes varints as protobuf does, and large ones", () => {
    // Field 1 (varint) = 150: the protobuf documentation's example, 08 96 01.
    const description: MessageDescription = { name: "T", fields: [{ name: "n", no: 1, kind: "int64" }] };
    expect([...encodeMessage(description, { n: 150 })]).toEqual([0x08, 0x96, 0x01]);
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(decodeMessage(description, encodeMessage(description, { n })).n).toBe(n);
      }),
    );
  });

  it("skips fields it does not know, as a newer Terraform may send them", () => {
    // GIVEN a request with field 7 (client_capabilities, not described) and a fixed32 field 9
    const known = encodeMessage(m.PlanResourceChangeRequest, { type_name: "routerjobs_script" });
    const unknown = Uint8Array.from([0x3a, 0x02, 0x08, 0x01, 0x4d, 1, 2, 3, 4]);
    const decoded = decodeMessage(m.PlanResourceChangeRequest, Uint8Array.from([...unknown, ...known]));
    expect(decoded.type_name).toBe("routerjobs_script");
  });

  it("refuses a truncated message and a field of the wrong type with a WireFormatError", () => {
    const encoded = encodeMessage(m.ImportResourceStateRequest, {
      type_name: "routerjobs_script",
      id: "a/b",
    });
    expect(() =>
      decodeMessage(m.ImportResourceStateRequest, encoded.subarray(0, encoded.length - 1)),
    ).toThrow(WireFormatError);
    expect(() => encodeMessage(m.ImportResourceStateRequest, { id: 5 })).toThrow(/id must be a string/);
    // A string field (type_name) holding a byte that is not UTF-8: the counterexample a CI run found.
    expect(() => decodeMessage(m.PlanResourceChangeRequest, Uint8Array.from([10, 1, 128]))).toThrow(
      /a string field is not valid UTF-8/,
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (garbage) => {
        try {
          decodeMessage(m.PlanResourceChangeRequest, garbage);
        } catch (error) {
          expect(error).toBeInstanceOf(WireFormatError);
        }
      }),
    );
  });
});
