/**
 * `routerjobs import`: a router's export turned into a TypeScript module with one RouterConfig section per
 * menu (more when a menu exceeds the script limit), in export order, so that bridges come before their ports.
 * Every line is written to run again without failing, as the typed helpers' `upsert` does: a `set` is
 * idempotent already; an `add` is guarded by a `find` on its name, or on all its properties when it has none.
 * So `plan` of the imported module against the same router shows no change (the round trip the tests check).
 * A line is written as a typed helper call instead where a helper does exactly what the guarded line does
 * (`import-helpers.ts`).
 */
import { SCRIPT_MAX_CHARS } from "../../contract/limits.js";
import { UsageError } from "../../errors.js";
import { parseExport, words } from "./export-diff.js";
import { helperLine } from "./import-helpers.js";

/** The written module imports `Construct` from here (spelled apart: only src/deploy/constructs imports it). */
const CONSTRUCTS_PACKAGE = "constructs";

export interface ImportOptions {
  readonly routerId: string;
  /** Where RouterConfig is imported from. @default "routerjobs/constructs" */
  readonly constructsModule?: string;
}

/** One line of a section's script. */
export interface ImportedLine {
  /** The script line, counted against the section's size: the guarded line, or what the helper call yields. */
  readonly script: string;
  /** The helper call written instead of the script text (`helpers.vlan({ ... })`), when one does the same. */
  readonly call?: string;
}

export interface ImportedSection {
  readonly name: string;
  readonly lines: readonly ImportedLine[];
}

const isProperty = (word: string) => /^[a-z][\w.-]*=/i.test(word);

/** One export line as a line that converges: the same configuration after one run or several. */
export function idempotentLine(menu: string, line: string): string {
  const [verb, ...rest] = words(line);
  if (verb !== "add") return `${menu} ${line}`;
  const name = rest.find((word) => word.startsWith("name="));
  const key = name ? [name] : rest.filter(isProperty);
  const add = `${menu} ${line}`;
  if (key.length === 0) return add;
  const guard = `:if ([:len [${menu} find ${key.join(" ")}]] = 0) do={ ${add} }`;
  const others = rest.filter((word) => word !== name);
  // A named item that exists already gets the exported properties, so it converges too.
  return name && others.length > 0
    ? `${guard} else={ ${menu} set [find ${name}] ${others.join(" ")} }`
    : guard;
}

/** Sections of at most SCRIPT_MAX_CHARS each, named after their menu (`ip-firewall-filter`, `-2`, ...). */
export function importSections(exportText: string): ImportedSection[] {
  const sections: ImportedSection[] = [];
  for (const [menu, lines] of parseExport(exportText)) {
    if (menu === "") continue;
    const base =
      menu
        .slice(1)
        .replace(/[^a-z0-9]+/gi, "-")
        .replace(/^-|-$/g, "") || "root";
    let chunk: ImportedLine[] = [];
    let size = 0;
    const flush = () => {
      if (chunk.length === 0) return;
      const count = sections.filter((section) => section.name.replace(/-\d+$/, "") === base).length;
      sections.push({ name: count === 0 ? base : `${base}-${count + 1}`, lines: chunk });
      chunk = [];
      size = 0;
    };
    for (const line of lines) {
      const raw = idempotentLine(menu, line);
      const imported: ImportedLine = helperLine(menu, line, raw) ?? { script: raw };
      const { script } = imported;
      if (script.length > SCRIPT_MAX_CHARS)
        throw new UsageError(
          `import: one ${menu} line is ${script.length} characters, over the script limit of ${SCRIPT_MAX_CHARS}`,
        );
      if (size + script.length + 1 > SCRIPT_MAX_CHARS) flush();
      chunk.push(imported);
      size += script.length + 1;
    }
    flush();
  }
  return sections;
}

/** The module's text. Stable for the same export (no date), so re-importing shows a meaningful git diff. */
export function importModule(exportText: string, options: ImportOptions): string {
  const sections = importSections(exportText);
  const usesHelpers = sections.some((section) => section.lines.some((line) => line.call !== undefined));
  const body = sections
    .map((section) => {
      const lines = section.lines
        .map((line) => `        ${line.call ?? JSON.stringify(line.script)},`)
        .join("\n");
      return `      {\n        name: ${JSON.stringify(section.name)},\n        script: [\n${lines}\n        ],\n      },`;
    })
    .join("\n");
  return `/**
 * Imported by \`routerjobs import\` from router ${options.routerId}: one section per menu of its export.
 * Each line can run again without failing; \`routerjobs plan\` of this module against the router shows no change.
 * Secrets (keys, passwords) are not in an export: add them yourself, from a secret store.
 */
import type { Construct } from ${JSON.stringify(CONSTRUCTS_PACKAGE)};
import { ${usesHelpers ? "helpers, " : ""}RouterConfig } from ${JSON.stringify(options.constructsModule ?? "routerjobs/constructs")};

export const routerId = ${JSON.stringify(options.routerId)};

export function importedRouter(scope: Construct, id = "imported"): RouterConfig {
  return new RouterConfig(scope, id, {
    routerId,
    sections: [
${body}
    ],
  });
}
`;
}
