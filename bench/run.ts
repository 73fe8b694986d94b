/**
 * `npm run bench [filter]`: runs every `bench/*.bench.ts`, prints each report and writes bench/results.json.
 * Each bench measures its subject against a baseline in the same run and reports ratios, so figures from
 * different machines or days compare by ratio, not by absolute time.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchModule, BenchReport } from "./harness.js";

const here = dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = (await readdir(here))
  .filter((file) => file.endsWith(".bench.ts") && (!filter || file.includes(filter)))
  .sort();
const reports: BenchReport[] = [];
for (const file of files) {
  const module = (await import(pathToFileURL(join(here, file)).href)) as BenchModule;
  const started = Date.now();
  process.stdout.write(`\n== ${file}\n`);
  const report = await module.run();
  reports.push({ ...report, file, seconds: (Date.now() - started) / 1000 });
  for (const line of report.lines) process.stdout.write(`  ${line}\n`);
}
const out = join(here, "results.json");
// A filtered run replaces its own benches' reports and keeps the others from earlier runs (each dated).
const date = new Date().toISOString();
const kept = filter ? await earlierReports(out, new Set(files)) : [];
const all = [...kept, ...reports.map((report) => ({ ...report, date, node: process.version }))].sort((a, b) =>
  String(a.file).localeCompare(String(b.file)),
);
await writeFile(out, `${JSON.stringify({ date, reports: all }, null, 2)}\n`);
process.stdout.write(`\nwrote ${out}\n`);

async function earlierReports(path: string, replaced: ReadonlySet<string>): Promise<BenchReport[]> {
  try {
    const earlier = JSON.parse(await readFile(path, "utf8")) as { reports?: BenchReport[] };
    return (earlier.reports ?? []).filter((report) => !replaced.has(String(report.file)));
  } catch {
    return [];
  }
}
