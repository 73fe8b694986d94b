/**
 * The RouterOS API wire format (MikroTik manual, "API words"): a word is its length, encoded in 1 to 5 bytes,
 * followed by that many bytes; a sentence is words up to a zero-length word. Lengths, high bits first:
 *
 * | length          | bytes | encoding                |
 * |-----------------|-------|-------------------------|
 * | < 0x80          | 1     | len                     |
 * | < 0x4000        | 2     | len \| 0x8000           |
 * | < 0x200000      | 3     | len \| 0xC00000         |
 * | < 0x10000000    | 4     | len \| 0xE0000000       |
 * | <= 0xFFFFFFFF   | 5     | 0xF0, then len (4 bytes) |
 *
 * A first byte of 0xF8 or more is a reserved control byte (0xF1-0xF7 are undefined): both are protocol errors.
 * Words are bytes here; text (UTF-8) appears only at the edges (`sentence.ts`).
 */
import { RouterApiProtocolError } from "./errors.js";

export const MAX_WORD_LENGTH = 0xffff_ffff;

export function encodeLength(length: number): Buffer {
  if (!Number.isInteger(length) || length < 0 || length > MAX_WORD_LENGTH) {
    throw new RouterApiProtocolError(`word length must be 0 to ${MAX_WORD_LENGTH} bytes (got ${length})`);
  }
  if (length < 0x80) return Buffer.from([length]);
  if (length < 0x4000) return Buffer.from([(length >>> 8) | 0x80, length & 0xff]);
  if (length < 0x20_0000) return Buffer.from([(length >>> 16) | 0xc0, (length >>> 8) & 0xff, length & 0xff]);
  if (length < 0x1000_0000) {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE((length | 0xe000_0000) >>> 0);
    return bytes;
  }
  const bytes = Buffer.alloc(5);
  bytes[0] = 0xf0;
  bytes.writeUInt32BE(length, 1);
  return bytes;
}

/** How many bytes the length starting with `first` takes (1-5); throws for a control or undefined byte. */
export function lengthPrefixSize(first: number): number {
  if (first < 0x80) return 1;
  if (first < 0xc0) return 2;
  if (first < 0xe0) return 3;
  if (first < 0xf0) return 4;
  if (first === 0xf0) return 5;
  throw new RouterApiProtocolError(
    `reserved control byte 0x${first.toString(16).toUpperCase()} where a word length was expected`,
  );
}

/** Decodes a complete length prefix (as many bytes as `lengthPrefixSize` said). */
export function decodeLength(prefix: Uint8Array): number {
  const first = prefix[0] ?? 0;
  const size = lengthPrefixSize(first);
  if (prefix.length !== size) {
    throw new RouterApiProtocolError(`a length starting with 0x${first.toString(16)} takes ${size} bytes`);
  }
  if (size === 5) return Buffer.from(prefix).readUInt32BE(1);
  // The marker bits sit above the value in the first byte: mask them off, then add the other bytes.
  const markerMask = [0x7f, 0x3f, 0x1f, 0x0f][size - 1] as number;
  let length = first & markerMask;
  for (let i = 1; i < size; i++) length = length * 256 + (prefix[i] as number);
  return length;
}

export function encodeWord(word: Uint8Array | string): Buffer {
  const bytes = typeof word === "string" ? Buffer.from(word, "utf8") : word;
  return Buffer.concat([encodeLength(bytes.length), bytes]);
}

/**
 * Encodes a sentence: its words and the zero-length word that ends it. An empty word inside would end the
 * sentence early, and an empty sentence is ignored by the router, so both are refused.
 */
export function encodeSentence(words: readonly (Uint8Array | string)[]): Buffer {
  if (words.length === 0) throw new RouterApiProtocolError("a sentence needs at least one word");
  const parts: Buffer[] = [];
  for (const word of words) {
    const encoded = encodeWord(word);
    if (encoded.length === 1) throw new RouterApiProtocolError("a word inside a sentence cannot be empty");
    parts.push(encoded);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

export interface DecoderLimits {
  /** @default 16 MiB */
  readonly maxWordBytes?: number;
  /** Bytes of all words of one sentence. @default 16 MiB */
  readonly maxSentenceBytes?: number;
  /** @default 10,000 */
  readonly maxSentenceWords?: number;
}

/**
 * Turns a byte stream, cut anywhere, into sentences. A word's bytes are copied once into a buffer of its
 * announced size (after the size is checked against the limits), so a large word arriving in many chunks
 * costs linear time and no more memory than the limit allows.
 */
export class SentenceDecoder {
  private readonly maxWordBytes: number;
  private readonly maxSentenceBytes: number;
  private readonly maxSentenceWords: number;
  private prefix: number[] = [];
  private prefixSize = 0;
  private word: Buffer | undefined;
  private filled = 0;
  private words: Buffer[] = [];
  private sentenceBytes = 0;

  constructor(limits: DecoderLimits = {}) {
    this.maxWordBytes = limits.maxWordBytes ?? 16 * 1024 * 1024;
    this.maxSentenceBytes = limits.maxSentenceBytes ?? 16 * 1024 * 1024;
    this.maxSentenceWords = limits.maxSentenceWords ?? 10_000;
  }

  /** True while a sentence has started but not ended (a connection closing now cut it). */
  get midSentence(): boolean {
    return this.prefix.length > 0 || this.word !== undefined || this.words.length > 0;
  }

  /** Feeds bytes; returns the sentences they completed, in order. Throws `RouterApiProtocolError`. */
  push(chunk: Uint8Array): Buffer[][] {
    const sentences: Buffer[][] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.word) {
        const take = Math.min(this.word.length - this.filled, chunk.length - at);
        this.word.set(chunk.subarray(at, at + take), this.filled);
        this.filled += take;
        at += take;
        if (this.filled === this.word.length) this.endWord();
        continue;
      }
      const byte = chunk[at++] as number;
      if (this.prefix.length === 0) this.prefixSize = lengthPrefixSize(byte);
      this.prefix.push(byte);
      if (this.prefix.length < this.prefixSize) continue;
      const length = decodeLength(Uint8Array.from(this.prefix));
      this.prefix = [];
      if (length === 0) {
        // Empty sentences are ignored (manual: "empty sentences are ignored").
        if (this.words.length > 0) sentences.push(this.words);
        this.words = [];
        this.sentenceBytes = 0;
        continue;
      }
      this.checkLimits(length);
      this.word = Buffer.allocUnsafe(length);
      this.filled = 0;
    }
    return sentences;
  }

  private checkLimits(length: number): void {
    if (length > this.maxWordBytes) {
      throw new RouterApiProtocolError(`a word of ${length} bytes exceeds the limit of ${this.maxWordBytes}`);
    }
    if (this.sentenceBytes + length > this.maxSentenceBytes) {
      throw new RouterApiProtocolError(`a sentence exceeds the limit of ${this.maxSentenceBytes} bytes`);
    }
    if (this.words.length + 1 > this.maxSentenceWords) {
      throw new RouterApiProtocolError(`a sentence exceeds the limit of ${this.maxSentenceWords} words`);
    }
    this.sentenceBytes += length;
  }

  private endWord(): void {
    this.words.push(this.word as Buffer);
    this.word = undefined;
    this.filled = 0;
  }
}
