/**
 * Sentences as text: the first word (a command such as `/ip/address/print`, or a reply such as `!re`), then
 * attribute words `=name=value`, API attribute words `.tag=7`, query words `?name=value` and, in `!fatal`,
 * bare words (its reason). Words are decoded as UTF-8 here and nowhere deeper.
 */
import { RouterApiProtocolError } from "./errors.js";

export interface ParsedSentence {
  /** The command or reply word. */
  readonly head: string;
  /** `=name=value` words; a value may contain `=`. `=follow=` has the value "". */
  readonly attributes: ReadonlyMap<string, string>;
  /** `.name=value` words other than `.tag`. */
  readonly apiAttributes: ReadonlyMap<string, string>;
  /** `?...` words, in order (their order is significant). */
  readonly queries: readonly string[];
  readonly tag?: string;
  /** Words of no other kind (the reason of `!fatal`). */
  readonly bare: readonly string[];
}

export function parseSentence(words: readonly Uint8Array[]): ParsedSentence {
  const [first, ...rest] = words.map((word) => Buffer.from(word).toString("utf8"));
  if (first === undefined) throw new RouterApiProtocolError("an empty sentence has no command");
  const attributes = new Map<string, string>();
  const apiAttributes = new Map<string, string>();
  const queries: string[] = [];
  const bare: string[] = [];
  let tag: string | undefined;
  for (const word of rest) {
    if (word.startsWith("=")) {
      const eq = word.indexOf("=", 1);
      attributes.set(eq < 0 ? word.slice(1) : word.slice(1, eq), eq < 0 ? "" : word.slice(eq + 1));
    } else if (word.startsWith("?")) queries.push(word);
    else if (word.startsWith(".") && word.includes("=")) {
      const eq = word.indexOf("=");
      const name = word.slice(1, eq);
      if (name === "tag") tag = word.slice(eq + 1);
      else apiAttributes.set(name, word.slice(eq + 1));
    } else bare.push(word);
  }
  return { head: first, attributes, apiAttributes, queries, bare, ...(tag === undefined ? {} : { tag }) };
}

export interface CommandWords {
  /** `/ip/address/print` */
  readonly command: string;
  /** Sent as `=name=value`, in this order. */
  readonly attributes?: Readonly<Record<string, string>>;
  /** Sent as `=.proplist=a,b`: only these properties in each record. */
  readonly proplist?: readonly string[];
  /** Query words, each starting with `?` (`?type=ether`, `?#|`). */
  readonly queries?: readonly string[];
  readonly tag?: string;
}

/** The words of one command sentence (without the ending empty word). */
export function commandWords(spec: CommandWords): string[] {
  if (!/^\/\S+$/.test(spec.command)) {
    throw new RouterApiProtocolError(
      `a command starts with / and has no spaces (got ${JSON.stringify(spec.command)})`,
    );
  }
  const words = [spec.command];
  for (const [name, value] of Object.entries(spec.attributes ?? {})) {
    if (name === "" || name.includes("=")) {
      throw new RouterApiProtocolError(
        `attribute name must be non-empty without "=" (got ${JSON.stringify(name)})`,
      );
    }
    words.push(`=${name}=${value}`);
  }
  if (spec.proplist) words.push(`=.proplist=${spec.proplist.join(",")}`);
  for (const query of spec.queries ?? []) {
    if (!query.startsWith("?") || query.length < 2) {
      throw new RouterApiProtocolError(`a query word starts with ? (got ${JSON.stringify(query)})`);
    }
    words.push(query);
  }
  if (spec.tag !== undefined) words.push(`.tag=${spec.tag}`);
  return words;
}

/** The words of a reply: `!re` and its attributes, with the tag of the command it answers. */
export function replyWords(
  head: string,
  attributes: Readonly<Record<string, string>> = {},
  tag?: string,
): string[] {
  const words = [head, ...Object.entries(attributes).map(([name, value]) => `=${name}=${value}`)];
  if (tag !== undefined) words.push(`.tag=${tag}`);
  return words;
}
