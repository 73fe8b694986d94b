import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RouterApiProtocolError } from "../../../src/routeros/api/errors.js";
import {
  decodeLength,
  encodeLength,
  encodeSentence,
  lengthPrefixSize,
  SentenceDecoder,
} from "../../../src/routeros/api/words.js";

/** Every length form of the manual's table, with its bounds. */
const FORMS = [
  { bytes: 1, min: 0, max: 0x7f },
  { bytes: 2, min: 0x80, max: 0x3fff },
  { bytes: 3, min: 0x4000, max: 0x1f_ffff },
  { bytes: 4, min: 0x20_0000, max: 0xfff_ffff },
  { bytes: 5, min: 0x1000_0000, max: 0xffff_ffff },
] as const;

/** Cuts `bytes` at the given points (sorted, deduplicated) into chunks. */
function chunked(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  return chunks;
}

describe("word lengths", () => {
  it("matches the manual's encoding at the edge of every form", () => {
    const vectors: [number, string][] = [
      [0, "00"],
      [0x7f, "7f"],
      [0x80, "8080"],
      [0x3fff, "bfff"],
      [0x4000, "c04000"],
      [0x1f_ffff, "dfffff"],
      [0x20_0000, "e0200000"],
      [0xfff_ffff, "efffffff"],
      [0x1000_0000, "f010000000"],
      [0xffff_ffff, "f0ffffffff"],
    ];
    for (const [length, hex] of vectors) {
      expect(encodeLength(length).toString("hex")).toBe(hex);
      expect(decodeLength(Buffer.from(hex, "hex"))).toBe(length);
    }
  });

  for (const form of FORMS) {
    it(`round-trips every ${form.bytes}-byte length (${form.min}..${form.max})`, () => {
      fc.assert(
        fc.property(fc.integer({ min: form.min, max: form.max }), (length) => {
          const encoded = encodeLength(length);
          expect(encoded.length).toBe(form.bytes);
          expect(lengthPrefixSize(encoded[0] as number)).toBe(form.bytes);
          expect(decodeLength(encoded)).toBe(length);
        }),
      );
    });
  }

  it("refuses reserved control bytes and undefined first bytes (0xF1-0xFF)", () => {
    for (let byte = 0xf1; byte <= 0xff; byte++) {
      expect(() => lengthPrefixSize(byte)).toThrow(RouterApiProtocolError);
      expect(() => new SentenceDecoder().push(Buffer.from([byte]))).toThrow(/reserved control byte 0x/);
    }
  });

  it("refuses lengths that no form holds", () => {
    expect(() => encodeLength(-1)).toThrow(/word length must be 0 to 4294967295/);
    expect(() => encodeLength(2 ** 32)).toThrow(RouterApiProtocolError);
    expect(() => encodeLength(1.5)).toThrow(RouterApiProtocolError);
  });
});

describe("sentences", () => {
  const word = fc.uint8Array({ minLength: 1, maxLength: 300 });
  const sentence = fc.array(word, { minLength: 1, maxLength: 6 });

  it("decode to what was encoded, however the stream is cut", () => {
    fc.assert(
      fc.property(
        fc.array(sentence, { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat()),
        (sentences, cuts) => {
          const stream = Buffer.concat(sentences.map((words) => encodeSentence(words)));
          const decoder = new SentenceDecoder();
          const decoded = chunked(stream, cuts).flatMap((chunk) => decoder.push(chunk));
          expect(decoded.map((words) => words.map((w) => Buffer.from(w).toString("hex")))).toEqual(
            sentences.map((words) => words.map((w) => Buffer.from(w).toString("hex"))),
          );
          expect(decoder.midSentence).toBe(false);
        },
      ),
    );
  });

  it("carry words of the 2-, 3- and 4-byte forms cut anywhere, and text as UTF-8 bytes", () => {
    const big = [0x80, 0x4000, 0x20_0000].map((size, i) => Buffer.alloc(size, 0x41 + i));
    const text = "=comment=Büro 🛰";
    const stream = encodeSentence(["/x", ...big, text]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 40 }), (cuts) => {
        const decoder = new SentenceDecoder();
        const [decoded, ...more] = chunked(stream, cuts).flatMap((chunk) => decoder.push(chunk));
        expect(more).toEqual([]);
        expect(decoded?.map((w) => w.length)).toEqual([2, 0x80, 0x4000, 0x20_0000, Buffer.byteLength(text)]);
        expect(decoded?.[3]?.equals(big[2] as Buffer)).toBe(true);
        expect(decoded?.[4]?.toString("utf8")).toBe(text);
      }),
      { numRuns: 10 },
    );
  });

  it("accepts a 5-byte length and waits for its bytes when the limit allows it", () => {
    const decoder = new SentenceDecoder({ maxWordBytes: 0x1000_0000, maxSentenceBytes: 0x1000_0000 });
    // Only the prefix and a few bytes: the word is announced, not sent (256 MiB has no place in a unit test).
    expect(decoder.push(Buffer.from("f010000000414141", "hex"))).toEqual([]);
    expect(decoder.midSentence).toBe(true);
  });

  it("refuses a word over the limit before allocating it, naming the limit", () => {
    expect(() => new SentenceDecoder().push(Buffer.from("f010000000", "hex"))).toThrow(
      "a word of 268435456 bytes exceeds the limit of 16777216",
    );
    const decoder = new SentenceDecoder({ maxSentenceBytes: 10 });
    expect(() => decoder.push(encodeSentence(["/abcdef", "=a=bcde"]))).toThrow(/exceeds the limit of 10/);
    const fewWords = new SentenceDecoder({ maxSentenceWords: 2 });
    expect(() => fewWords.push(encodeSentence(["/a", "=b=", "=c="]))).toThrow(/limit of 2/);
  });

  it("ignores empty sentences, as the router does", () => {
    const decoder = new SentenceDecoder();
    expect(
      decoder.push(Buffer.concat([Buffer.from([0, 0]), encodeSentence(["!done"]), Buffer.from([0])])),
    ).toEqual([[Buffer.from("!done")]]);
  });

  it("refuses an empty word inside a sentence and an empty sentence", () => {
    expect(() => encodeSentence(["/x", ""])).toThrow("a word inside a sentence cannot be empty");
    expect(() => encodeSentence([])).toThrow("a sentence needs at least one word");
  });
});
