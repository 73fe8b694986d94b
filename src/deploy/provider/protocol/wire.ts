/**
 * Protocol Buffers' wire format, driven by message descriptions written in this folder (messages.ts): varints,
 * length-delimited fields, repeated fields and maps. proto3 rules: a field at its default is not sent, a field
 * not sent decodes to its default, and a field this code does not know is skipped (a newer Terraform may send
 * fields added after the protocol version we describe).
 */
import { RouterjobsError } from "../../../errors.js";

export type ScalarKind = "string" | "bytes" | "bool" | "int64" | "enum";

export type FieldKind =
  | ScalarKind
  | { readonly message: () => MessageDescription }
  | { readonly map: () => MessageDescription };

export interface FieldDescription {
  readonly name: string;
  readonly no: number;
  readonly kind: FieldKind;
  readonly repeated?: boolean;
}

export interface MessageDescription {
  readonly name: string;
  readonly fields: readonly FieldDescription[];
}

/** A decoded message: scalars as JS values, messages as nested objects, maps as plain records. */
export type WireValue = string | number | boolean | Uint8Array | WireMessage | WireValue[] | WireMap;
export interface WireMessage {
  [field: string]: WireValue | undefined;
}
export interface WireMap {
  [key: string]: WireMessage;
}

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** A message that is not what its description says: Terraform and this provider disagree about the protocol. */
export class WireFormatError extends RouterjobsError {
  override readonly name = "WireFormatError";
}

class Writer {
  private readonly chunks: Uint8Array[] = [];
  private readonly encoder = new TextEncoder();

  varint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new WireFormatError(`a varint must be a non-negative safe integer, not ${value}`);
    const bytes: number[] = [];
    let rest = value;
    while (rest >= 0x80) {
      bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    bytes.push(rest);
    this.chunks.push(Uint8Array.from(bytes));
  }

  tag(no: number, wireType: number): void {
    this.varint(no * 8 + wireType);
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.chunks.push(value);
  }

  string(value: string): void {
    this.bytes(this.encoder.encode(value));
  }

  finish(): Uint8Array {
    const total = this.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}

class Reader {
  at = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  constructor(private readonly buffer: Uint8Array) {}

  get done(): boolean {
    return this.at >= this.buffer.length;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const byte = this.buffer[this.at++];
      if (byte === undefined) throw new WireFormatError("the message ends inside a varint");
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 0x80;
    }
    throw new WireFormatError("a varint is longer than 10 bytes");
  }

  bytes(): Uint8Array {
    const length = this.varint();
    const end = this.at + length;
    if (end > this.buffer.length) throw new WireFormatError("a length-delimited field runs past the message");
    const slice = this.buffer.subarray(this.at, end);
    this.at = end;
    return slice;
  }

  string(): string {
    const bytes = this.bytes();
    try {
      return this.decoder.decode(bytes);
    } catch {
      // A string field must be UTF-8 (protobuf's rule); TextDecoder's TypeError would read as a bug of ours.
      throw new WireFormatError("a string field is not valid UTF-8");
    }
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === LENGTH_DELIMITED) this.bytes();
    else if (wireType === FIXED64) this.advance(8);
    else if (wireType === FIXED32) this.advance(4);
    else throw new WireFormatError(`unsupported wire type ${wireType}`);
  }

  private advance(count: number): void {
    if (this.at + count > this.buffer.length)
      throw new WireFormatError("a fixed field runs past the message");
    this.at += count;
  }
}

function isDefault(kind: FieldKind, value: WireValue): boolean {
  if (kind === "string") return value === "";
  if (kind === "bool") return value === false;
  if (kind === "int64" || kind === "enum") return value === 0;
  if (kind === "bytes") return value instanceof Uint8Array && value.length === 0;
  return false;
}

function writeScalar(writer: Writer, field: FieldDescription, value: WireValue): void {
  const { kind, no, name } = field;
  if (kind === "string") {
    if (typeof value !== "string") throw new WireFormatError(`${name} must be a string`);
    writer.tag(no, LENGTH_DELIMITED);
    writer.string(value);
  } else if (kind === "bytes") {
    if (!(value instanceof Uint8Array)) throw new WireFormatError(`${name} must be bytes`);
    writer.tag(no, LENGTH_DELIMITED);
    writer.bytes(value);
  } else if (kind === "bool") {
    if (typeof value !== "boolean") throw new WireFormatError(`${name} must be a boolean`);
    writer.tag(no, VARINT);
    writer.varint(value ? 1 : 0);
  } else {
    if (typeof value !== "number") throw new WireFormatError(`${name} must be a number`);
    writer.tag(no, VARINT);
    writer.varint(value);
  }
}

function writeField(writer: Writer, field: FieldDescription, value: WireValue): void {
  const { kind } = field;
  if (typeof kind === "string") {
    if (!isDefault(kind, value)) writeScalar(writer, field, value);
  } else if ("message" in kind) {
    writer.tag(field.no, LENGTH_DELIMITED);
    writer.bytes(encodeMessage(kind.message(), asMessage(value, field.name)));
  } else {
    const entry = kind.map();
    for (const [key, item] of Object.entries(asMessage(value, field.name))) {
      if (item === undefined) continue;
      writer.tag(field.no, LENGTH_DELIMITED);
      writer.bytes(encodeMessage(MAP_ENTRY, { key, value: encodeMessage(entry, asMessage(item, key)) }));
    }
  }
}

/** A map entry as sent: the key, and the value already encoded (its own description decodes it). */
const MAP_ENTRY: MessageDescription = {
  name: "MapEntry",
  fields: [
    { name: "key", no: 1, kind: "string" },
    { name: "value", no: 2, kind: "bytes" },
  ],
};

function asMessage(value: WireValue, name: string): WireMessage {
  if (typeof value !== "object" || value === null || value instanceof Uint8Array || Array.isArray(value))
    throw new WireFormatError(`${name} must be a message`);
  return value as WireMessage;
}

export function encodeMessage(description: MessageDescription, message: WireMessage): Uint8Array {
  const writer = new Writer();
  for (const field of description.fields) {
    const value = message[field.name];
    if (value === undefined) continue;
    if (field.repeated) {
      if (!Array.isArray(value))
        throw new WireFormatError(`${description.name}.${field.name} must be a list`);
      for (const item of value) writeField(writer, field, item);
    } else writeField(writer, field, value);
  }
  return writer.finish();
}

function defaultOf(field: FieldDescription): WireValue | undefined {
  if (field.repeated) return [];
  const { kind } = field;
  if (kind === "string") return "";
  if (kind === "bytes") return new Uint8Array(0);
  if (kind === "bool") return false;
  if (kind === "int64" || kind === "enum") return 0;
  if ("map" in kind) return {};
  return undefined;
}

function readScalar(reader: Reader, kind: ScalarKind, wireType: number, name: string): WireValue {
  const expected = kind === "string" || kind === "bytes" ? LENGTH_DELIMITED : VARINT;
  if (wireType !== expected) throw new WireFormatError(`${name} has wire type ${wireType}, not ${expected}`);
  if (kind === "string") return reader.string();
  if (kind === "bytes") return reader.bytes().slice();
  if (kind === "bool") return reader.varint() !== 0;
  return reader.varint();
}

export function decodeMessage(description: MessageDescription, buffer: Uint8Array): WireMessage {
  const message: WireMessage = {};
  for (const field of description.fields) {
    const initial = defaultOf(field);
    if (initial !== undefined) message[field.name] = initial;
  }
  const byNumber = new Map(description.fields.map((field) => [field.no, field]));
  const reader = new Reader(buffer);
  while (!reader.done) {
    const tag = reader.varint();
    const no = Math.floor(tag / 8);
    const wireType = tag % 8;
    const field = byNumber.get(no);
    if (!field) {
      reader.skip(wireType);
      continue;
    }
    const { kind } = field;
    const name = `${description.name}.${field.name}`;
    let value: WireValue;
    if (typeof kind === "string") {
      // Packed repeated scalars (proto3's default for numbers) arrive as one length-delimited run.
      if (field.repeated && kind !== "string" && kind !== "bytes" && wireType === LENGTH_DELIMITED) {
        const run = new Reader(reader.bytes());
        const list = message[field.name] as WireValue[];
        while (!run.done) list.push(readScalar(run, kind, VARINT, name));
        continue;
      }
      value = readScalar(reader, kind, wireType, name);
    } else {
      if (wireType !== LENGTH_DELIMITED) throw new WireFormatError(`${name} must be length-delimited`);
      const bytes = reader.bytes();
      if ("message" in kind) value = decodeMessage(kind.message(), bytes);
      else {
        const entry = decodeMessage(MAP_ENTRY, bytes);
        const map = message[field.name] as WireMap;
        // An own property whatever the key: `map["__proto__"] = ...` would set the object's prototype instead.
        Object.defineProperty(map, entry.key as string, {
          value: decodeMessage(kind.map(), entry.value as Uint8Array),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        continue;
      }
    }
    if (field.repeated) (message[field.name] as WireValue[]).push(value);
    else message[field.name] = value;
  }
  return message;
}
