/**
 * Subjects that make RE2's matching as slow as the limits let it be, for the tests of those limits. Against
 * `a[ab]{30}$`, text of `a` and `b` in no pattern gives RE2's DFA a new state at nearly every character, so it
 * gives up and the NFA runs: milliseconds for a few thousand characters, where a plain text takes microseconds.
 */
export const NFA_PATTERN = "a[ab]{30}$";

/** `length` characters of `a` and `b`, the same every run. */
export function nfaSubject(length: number): string {
  let state = 7;
  let text = "";
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    text += (state >> 8) & 1 ? "b" : "a";
  }
  return text;
}
