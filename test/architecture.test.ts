/**
 * The layout's rules, read from the imports of every file under src/: each part imports only the parts below it
 * (no arrow runs back up), and no folder grows past about twenty files without sub-folders.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

/**
 * The parts, lowest first. A file belongs to the longest prefix that names it; it may import its own part and
 * any part listed before it. Parts on one line of the drawing (the same rank) do not import each other.
 */
const RANKS: readonly (readonly string[])[] = [
  ["errors.ts", "platform"],
  ["contract"],
  ["client"],
  ["routeros/limits.ts", "routeros/errors.ts"],
  ["routeros/language"],
  ["routeros/runtime", "routeros/catalog", "routeros/build", "routeros/api"],
  ["routeros/index.ts"],
  ["routeros/simulator"],
  ["service/database"],
  ["service/jobs", "service/notifications", "service/routers", "service/schema.ts", "service/instances.ts"],
  ["service/auth", "service/config.ts"],
  ["service/scheduling", "service/seed.ts"],
  ["service/receiver", "service/http"],
  ["service/portal"],
  ["service/app.ts"],
  ["service/server.ts"],
  ["deploy/terraform", "deploy/job-list"],
  ["deploy/rollback", "deploy/constructs", "deploy/plan"],
  ["deploy/apply"],
  ["deploy/reconcile", "deploy/provider"],
  ["index.ts", "demo"],
  ["cli"],
];

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [relative(SRC, path).split("\\").join("/")] : [];
  });
}

function partOf(file: string): { part: string; rank: number } {
  let best: { part: string; rank: number } | undefined;
  RANKS.forEach((parts, rank) => {
    for (const part of parts) {
      const hit = part.endsWith(".ts") ? file === part : file.startsWith(`${part}/`);
      if (hit && (!best || part.length > best.part.length)) best = { part, rank };
    }
  });
  if (!best) throw new Error(`src/${file} belongs to no part of the drawing: add its folder to RANKS`);
  return best;
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map(
    (match) => match[1] ?? "",
  );
  return specs.map((spec) => posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, ".ts"));
}

describe("the layout", () => {
  const files = sources(SRC);

  it("has every file in a part of the drawing", () => {
    expect(() => files.map(partOf)).not.toThrow();
  });

  it("has no import running back up the drawing or across one rank", () => {
    // GIVEN every relative import of every source file
    const offenders: string[] = [];
    for (const file of files) {
      const from = partOf(file);
      for (const target of importsOf(file)) {
        const to = partOf(target);
        // THEN it names its own part or one ranked below it
        if (to.part !== from.part && to.rank >= from.rank) offenders.push(`src/${file} -> src/${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("has every error class under the one base, so each carries a code the CLI maps to an exit code", () => {
    const outside = files
      .filter((file) => file !== "errors.ts")
      .filter((file) => /class \w+ extends Error\b/.test(readFileSync(join(SRC, file), "utf8")));
    expect(outside).toEqual([]);
  });

  it("keeps each folder to about twenty files, the rest in sub-folders", () => {
    const counts = new Map<string, number>();
    for (const file of files) counts.set(dirname(file), (counts.get(dirname(file)) ?? 0) + 1);
    const crowded = [...counts]
      .filter(([, count]) => count > 21)
      .map(([folder, count]) => `src/${folder}: ${count}`);
    expect(crowded).toEqual([]);
  });
});
