import type { RosValue } from "./host.js";

export const INTEGER = /^-?\d+$/;

/** The value a bare word stands for in a script: `3` is a number, `true`/`false` booleans, anything else text. */
export function typeWord(word: string): RosValue {
  if (INTEGER.test(word)) {
    const number = Number(word);
    if (Number.isSafeInteger(number)) return number;
  }
  if (word === "true") return true;
  if (word === "false") return false;
  return word;
}
