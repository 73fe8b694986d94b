/**
 * The difference between two `/export` texts, menu by menu: lines added, lines removed, and lines changed
 * (a removed and an added line for the same item: the same `set` target, or an `add` with the same `name=`).
 * Lines are compared as whole commands, so a property reordering inside a line never shows as a change, and
 * comments (`# ...`, the header) never do either. A menu whose lines only moved is `reordered`: firewall rules
 * act in order, so a move is a real change.
 */

export interface ChangedLine {
  readonly before: string;
  readonly after: string;
}

export interface MenuDiff {
  /** `/ip firewall filter`; the empty string for lines before any menu header. */
  readonly menu: string;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly ChangedLine[];
  readonly reordered: boolean;
}

/** Menu -> its command lines in order. Continuation lines (`\` at the end) are joined first. */
export function parseExport(text: string): Map<string, string[]> {
  const menus = new Map<string, string[]>();
  let menu = "";
  const joined = text.replace(/\\\r?\n\s*/g, "");
  for (const raw of joined.split(/\r?\n/)) {
    // Whitespace is normalised word by word (canonicalLine): spaces inside a quoted value are the value's.
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("/")) {
      menu = line.replace(/\s+/g, " ");
      continue;
    }
    const lines = menus.get(menu) ?? [];
    lines.push(canonicalLine(line));
    menus.set(menu, lines);
  }
  return menus;
}

/** Splits a command line into words: spaces inside quotes or brackets do not split. */
export function words(line: string): string[] {
  const out: string[] = [];
  let current = "";
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quoted && char === "\\") {
      current += char + (line[i + 1] ?? "");
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === "[") depth++;
    else if (!quoted && char === "]") depth--;
    if (char === " " && !quoted && depth === 0) {
      if (current !== "") out.push(current);
      current = "";
    } else current += char;
  }
  if (current !== "") out.push(current);
  return out;
}

/** `add b=2 a=1` and `add a=1 b=2` are the same command: properties sorted, the selector kept in place. */
function canonicalLine(line: string): string {
  const [verb, ...rest] = words(line);
  const selector = rest.filter((word) => !isProperty(word));
  const properties = rest.filter(isProperty).sort();
  return [verb, ...selector, ...properties].join(" ");
}

const isProperty = (word: string) => /^[a-z][\w.-]*=/i.test(word);

/** What identifies the item a line is about, when anything does. */
function itemKey(line: string): string | undefined {
  const [verb, ...rest] = words(line);
  if (verb === "set") return `set ${rest.filter((word) => !isProperty(word)).join(" ")}`;
  const name = rest.find((word) => word.startsWith("name="));
  return verb === "add" && name ? `add ${name}` : undefined;
}

/** Removes one occurrence of each of `minus` from `from` (a multiset difference). */
function difference(from: readonly string[], minus: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of minus) counts.set(line, (counts.get(line) ?? 0) + 1);
  return from.filter((line) => {
    const count = counts.get(line) ?? 0;
    if (count === 0) return true;
    counts.set(line, count - 1);
    return false;
  });
}

function menuDiff(menu: string, before: readonly string[], after: readonly string[]): MenuDiff | undefined {
  const removed = difference(before, after);
  const added = difference(after, before);
  const changed: ChangedLine[] = [];
  for (const line of [...removed]) {
    const key = itemKey(line);
    const partner = key === undefined ? undefined : added.find((candidate) => itemKey(candidate) === key);
    if (partner === undefined) continue;
    changed.push({ before: line, after: partner });
    removed.splice(removed.indexOf(line), 1);
    added.splice(added.indexOf(partner), 1);
  }
  const reordered =
    removed.length === 0 &&
    added.length === 0 &&
    changed.length === 0 &&
    before.some((line, i) => after[i] !== line);
  if (removed.length + added.length + changed.length === 0 && !reordered) return undefined;
  return { menu, added, removed, changed, reordered };
}

/** Every menu that differs, in the order of `after` (then menus only `before` has). */
export function diffExports(before: string, after: string): MenuDiff[] {
  const old = parseExport(before);
  const next = parseExport(after);
  const menus = [...new Set([...next.keys(), ...old.keys()])];
  return menus.flatMap((menu) => menuDiff(menu, old.get(menu) ?? [], next.get(menu) ?? []) ?? []);
}
