/**
 * Writes dist/.npmignore after the build: the tarball ships, besides the bundled CLI (dist/bundle/, all of
 * which bin/routerjobs.js loads), only the files of dist/ that package.json's `exports` entries reach through
 * their imports (JavaScript and declarations). The rest of tsc's output (the service, the simulator, the CLI's
 * own modules: the bundle holds its own copy) stays in dist/ for the checkout's tests and benches and out of
 * the tarball. npm reads a `.npmignore` inside a folder that `files` names, and this one lists what to keep.
 * Imports are read from TypeScript's parse of each file (import and export declarations, `import()` and
 * `require()` with a literal specifier, and declarations' `import("...")` types); a relative import whose file
 * is missing fails the build.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");

/** The module specifiers `file` names. */
function specifiers(file) {
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      found.push(node.moduleSpecifier.text);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      found.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false));
  return found;
}

/** The files of dist/ that `entries` reach, relative to dist/. */
export function reachedFiles(entries) {
  const reached = new Set();
  const pending = entries.map((entry) => resolve(ROOT, entry));
  while (pending.length > 0) {
    const file = pending.pop();
    if (reached.has(file)) continue;
    reached.add(file);
    for (const fileName of specifiers(file)) {
      if (!fileName.startsWith(".")) continue;
      let target = resolve(dirname(file), fileName);
      if (file.endsWith(".d.ts")) target = target.replace(/\.js$/, ".d.ts");
      if (!existsSync(target))
        throw new Error(`${relative(ROOT, file)} imports ${fileName}, which the build did not write`);
      pending.push(target);
    }
  }
  return [...reached].map((file) => relative(DIST, file)).sort();
}

/** Every path that package.json's `exports` and `types` name. */
export function exportedEntries() {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const entries = new Set([pkg.main, pkg.types]);
  const walk = (value) => {
    if (typeof value === "string") entries.add(value);
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(pkg.exports);
  return [...entries].filter(
    (entry) => entry?.replace(/^\.\//, "").startsWith("dist/") && !entry.includes("/bundle/"),
  );
}

if (process.argv[1] === import.meta.filename) {
  const keep = reachedFiles(exportedEntries());
  writeFileSync(
    join(DIST, ".npmignore"),
    `# Written by scripts/package-files.mjs: what the tarball ships of dist/ (the rest is for the checkout).\n*\n!*/\n!/bundle/**\n${keep.map((file) => `!/${file}`).join("\n")}\n`,
  );
}
