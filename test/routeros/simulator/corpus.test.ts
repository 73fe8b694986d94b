/**
 * The simulated router against realistic configurations (test/routeros/simulator/corpus/*.rsc, written in the style
 * of RouterOS exports and default-configuration scripts): how many run to the end, how many of their
 * commands apply, and whether export -> fresh router -> import gives the same export.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshRouter, measure, type ScriptFigures } from "./corpus-measure.js";

const folder = join(import.meta.dirname, "corpus");
const files = readdirSync(folder)
  .filter((name) => name.endsWith(".rsc"))
  .sort();
const read = (name: string) => readFileSync(join(folder, name), "utf8");

async function exportOf(source: string): Promise<string> {
  const router = freshRouter();
  const outcome = await router.runScript(source);
  if (!outcome.ok) throw new Error(`script failed: ${outcome.error}`);
  return (await router.runScript("/export")).output;
}

describe("the corpus of realistic configurations", () => {
  it("has the five kinds of configuration the issue names", () => {
    expect(files).toHaveLength(5);
  });

  it("runs at least 90% of scripts to the end and applies at least 95% of their commands", async () => {
    const figures = new Map<string, ScriptFigures>();
    for (const file of files) figures.set(file, await measure(read(file)));
    const all = [...figures.values()];
    const parsed = all.filter((f) => f.parses).length;
    const ran = all.filter((f) => f.runsToEnd).length;
    const commands = all.reduce((sum, f) => sum + f.commands, 0);
    const applied = all.reduce((sum, f) => sum + f.applied, 0);
    const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
    for (const [file, f] of figures) {
      console.log(
        `${file}: parses=${f.parses} runs-to-end=${f.runsToEnd} applied=${f.applied}/${f.commands}` +
          (f.error ? ` error="${f.error}"` : ""),
      );
      for (const failure of f.failures) console.log(`  failed: ${failure}`);
    }
    console.log(
      `corpus: ${files.length} scripts, parse ${percent(parsed, files.length)}, run to the end ` +
        `${percent(ran, files.length)}, commands applied ${percent(applied, commands)} (${applied}/${commands})`,
    );
    expect(ran / files.length).toBeGreaterThanOrEqual(0.9);
    expect(applied / commands).toBeGreaterThanOrEqual(0.95);
  });

  it.each(files)("%s: export, then import on a fresh router, gives the same export", async (file) => {
    const first = await exportOf(read(file));
    const second = await exportOf(first);
    expect(second).toBe(first);
    // The export holds what the script configured, not only a header.
    expect(first.split("\n").length).toBeGreaterThan(10);
  });
});
