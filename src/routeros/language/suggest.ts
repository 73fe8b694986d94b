/**
 * "Did you mean" for a misspelled name: the valid names nearest to it in edit distance (insertions,
 * deletions, substitutions and swaps of two neighbours each count one), and the names it is an ambiguous
 * abbreviation of (`/ip a` could be `accounting`, `address`, `arp`...).
 */

/** Optimal string alignment distance: Levenshtein plus adjacent transposition (`adress`, `adderss`). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** How far a suggestion may be: one edit in a word of four letters, two in five, at most three. */
function reach(word: string): number {
  return Math.min(3, Math.max(1, Math.round(word.length / 3)));
}

/**
 * At most `limit` names close to `word`, nearest first (ties alphabetical). Names that `word` abbreviates
 * come first when there are several: the word was ambiguous rather than wrong.
 */
export function suggestNames(word: string, names: readonly string[], limit = 3): string[] {
  const unique = [...new Set(names)].filter((name) => name !== word);
  const prefixed = unique.filter((name) => word.length > 0 && name.startsWith(word)).sort();
  const near = unique
    .filter((name) => !prefixed.includes(name))
    .map((name) => ({ name, distance: editDistance(word, name) }))
    .filter((entry) => entry.distance <= reach(word))
    .sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name))
    .map((entry) => entry.name);
  return [...prefixed, ...near].slice(0, limit);
}

/** "did you mean `a`?", "did you mean `a`, `b` or `c`?"; empty when there is nothing to offer. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return "";
  const quoted = suggestions.map((name) => `\`${name}\``);
  const last = quoted.pop() as string;
  return `did you mean ${quoted.length > 0 ? `${quoted.join(", ")} or ${last}` : last}?`;
}
