/** Plain-text output shared by the commands: aligned tables and JSON. Data goes to stdout, nothing else. */

export function writeJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function writeLines(lines: readonly string[]): void {
  process.stdout.write(lines.map((line) => `${line}\n`).join(""));
}

/** An aligned table; columns default to every key of the rows, in first-seen order. */
export function formatTable(rows: readonly Record<string, unknown>[], columns?: readonly string[]): string[] {
  const names = columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => names.map((name) => cellText(row[name])));
  const widths = names.map((name, i) =>
    Math.max(name.length, ...cells.map((cell) => (cell[i] as string).length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  return [line(names.map((name) => name.toUpperCase())), ...cells.map(line)];
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return "-";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.replace(/[\r\n\t]+/g, " ");
}
