import { isUtf8 } from "node:buffer";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fieldsNotUtf8 } from "../../../../src/service/http/plugins/json-body.js";

/** Byte sequences that are not UTF-8: a stray byte, cut sequences, an overlong form, an encoded surrogate, past U+10FFFF. */
const INVALID = [
  [0xff],
  [0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5],
];

describe("fieldsNotUtf8: which fields of a JSON body hold bytes that are not UTF-8", () => {
  it("names exactly the fields that hold them, not those with a real U+FFFD or other text", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 1, maxLength: 6 }),
        fc.array(fc.string({ unit: "grapheme", maxLength: 20 }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        fc.array(fc.constantFrom(...INVALID), { minLength: 6, maxLength: 6 }),
        (keys, texts, broken, sequences) => {
          const members = keys.map((key, index) => {
            const text = JSON.stringify(`${texts[index]}\ufffd`).slice(1, -1);
            const value = broken[index]
              ? [Buffer.from(text), Buffer.from(sequences[index] as number[]), Buffer.from(text)]
              : [Buffer.from(text)];
            return Buffer.concat([Buffer.from(`${JSON.stringify(key)}:"`), ...value, Buffer.from('"')]);
          });
          const bytes = Buffer.concat([
            Buffer.from("{"),
            ...members.flatMap((member, index) => (index === 0 ? [member] : [Buffer.from(","), member])),
            Buffer.from("}"),
          ]);
          const expected = keys.filter((_, index) => broken[index]);
          expect(isUtf8(bytes)).toBe(expected.length === 0);
          expect(fieldsNotUtf8(bytes)).toEqual(expected);
        },
      ),
    );
  });

  it("names nested fields by their path, and none when the bytes are outside any string", () => {
    const nested = Buffer.concat([
      Buffer.from('{"teams":[{"name":"a'),
      Buffer.from([0xff]),
      Buffer.from('"}]}'),
    ]);
    expect(fieldsNotUtf8(nested)).toEqual(["teams.0.name"]);
    const outside = Buffer.concat([Buffer.from('{"a":"x"'), Buffer.from([0xff]), Buffer.from("}")]);
    expect(fieldsNotUtf8(outside)).toEqual([]);
  });
});
