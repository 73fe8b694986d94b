/**
 * RouterOS API query words (manual, "Queries"), evaluated on a stack of booleans that starts with infinitely
 * many `true`; an item matches unless a `false` is left on the stack. Words, in order:
 *   `?name` has a value, `?-name` has none, `?name=x` / `?=name=x` equals, `?<name=x` less, `?>name=x` greater,
 *   `?#ops` stack operations: digits are an index (top is 0; followed by a character it pushes a copy of that
 *   value, at the end of the word it replaces the whole stack with it), `!` negates the top, `&` and `|` pop
 *   two and push the result, `.` after an index does nothing and after anything else pushes a copy of the top.
 */
import { RouterApiProtocolError } from "./errors.js";

export type Item = Readonly<Record<string, string>>;
export type ValueEquals = (item: Item, name: string, wanted: string) => boolean;

/** The pushed values; below them, infinitely many copies of `bottom` (true until `?#N` replaces them all). */
interface Stack {
  readonly values: boolean[];
  bottom: boolean;
}
type Step = (item: Item, stack: Stack) => void;

/** Compiles query words into a predicate; throws `RouterApiProtocolError` naming a malformed word. */
export function compileQuery(
  words: readonly string[],
  equals: ValueEquals = (item, name, wanted) => (item[name] ?? "") === wanted,
): (item: Item) => boolean {
  const steps = words.map((word) => compileWord(word, equals));
  return (item) => {
    const stack: Stack = { values: [], bottom: true };
    for (const step of steps) step(item, stack);
    return stack.bottom && !stack.values.includes(false);
  };
}

const at = ({ values, bottom }: Stack, index: number) =>
  index < values.length ? (values[values.length - 1 - index] as boolean) : bottom;
const pop = (stack: Stack) => (stack.values.length > 0 ? (stack.values.pop() as boolean) : stack.bottom);

function compileWord(word: string, equals: ValueEquals): Step {
  if (!word.startsWith("?") || word.length < 2)
    throw new RouterApiProtocolError(`bad query word ${JSON.stringify(word)}`);
  const body = word.slice(1);
  if (body.startsWith("#")) return compileOperations(word, body.slice(1));
  const compare = /^([<>=])?([^=<>][^=]*)(?:=(.*))?$/s.exec(body);
  const [, operator, name, value] = compare ?? [];
  if (!name) throw new RouterApiProtocolError(`bad query word ${JSON.stringify(word)}`);
  if (value === undefined) {
    if (operator) throw new RouterApiProtocolError(`query word ${JSON.stringify(word)} needs =value`);
    if (name.startsWith("-"))
      return (item, stack) => void stack.values.push((item[name.slice(1)] ?? "") === "");
    return (item, stack) => void stack.values.push((item[name] ?? "") !== "");
  }
  if (operator === "<" || operator === ">") {
    const sign = operator === "<" ? -1 : 1;
    return (item, stack) =>
      void stack.values.push(Math.sign(compareValues(item[name] ?? "", value)) === sign);
  }
  return (item, stack) => void stack.values.push(equals(item, name, value));
}

/** Numbers compare as numbers, anything else as text. */
function compareValues(a: string, b: string): number {
  const numeric = /^-?\d+$/;
  if (numeric.test(a) && numeric.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function compileOperations(word: string, operations: string): Step {
  if (!/^[\d!&|.]+$/.test(operations))
    throw new RouterApiProtocolError(`bad query word ${JSON.stringify(word)}`);
  return (_item, stack) => {
    let i = 0;
    let afterIndex = false;
    while (i < operations.length) {
      const digits = /^\d+/.exec(operations.slice(i));
      if (digits) {
        const value = at(stack, Number(digits[0]));
        i += digits[0].length;
        if (i === operations.length) {
          stack.values.length = 0;
          stack.bottom = value;
        } else stack.values.push(value);
        afterIndex = true;
        continue;
      }
      const op = operations[i++];
      if (op === "!") stack.values.push(!pop(stack));
      else if (op === "&" || op === "|") {
        const right = pop(stack);
        const left = pop(stack);
        stack.values.push(op === "&" ? left && right : left || right);
      } else if (op === "." && !afterIndex) stack.values.push(at(stack, 0));
      afterIndex = false;
    }
  };
}
