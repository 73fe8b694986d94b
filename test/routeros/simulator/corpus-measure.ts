/**
 * Measures how much of a RouterOS script the simulated router takes: whether it parses against the router's
 * catalog, whether it runs to the end on a fresh router, and which of its commands apply. Export-style files
 * (menu lines and commands, no language) are also replayed command by command, each on its own, so that one
 * failing command does not hide the ones after it; a scripted file counts the commands before a failure.
 */
import { RouterOsError } from "../../../src/routeros/errors.js";
import { parseScript } from "../../../src/routeros/language/parser.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";

export interface ScriptFigures {
  readonly parses: boolean;
  readonly runsToEnd: boolean;
  readonly error?: string;
  readonly commands: number;
  readonly applied: number;
  readonly failures: readonly string[];
}

export const freshRouter = () =>
  new SimulatedRouter({ name: "corpus", now: () => new Date("2026-11-22T10:00:00Z"), delayScale: 0 });

const isComment = (line: string) => line.trim() === "" || line.trim().startsWith("#");

/** Export style: every line a comment, a menu (`/ip address`) or a command; no `:` commands or blocks. */
export function isExportStyle(source: string): boolean {
  return source
    .split("\n")
    .every((line) => isComment(line) || (!line.startsWith(":") && !line.includes("{")));
}

async function perCommand(
  source: string,
): Promise<{ commands: number; applied: number; failures: string[] }> {
  const router = freshRouter();
  let menu = "";
  let commands = 0;
  let applied = 0;
  const failures: string[] = [];
  for (const line of source.split("\n")) {
    if (isComment(line)) continue;
    const words = line.trim().split(/\s+/);
    // A line of menu words only (`/ip firewall filter`) changes the menu the next lines run in.
    if (
      line.startsWith("/") &&
      router.catalog.isMenu(
        words
          .join(" ")
          .slice(1)
          .split(/[\s/]+/)
          .filter(Boolean),
      )
    ) {
      menu = line.trim();
      continue;
    }
    commands++;
    const outcome = await router.runScript(line.startsWith("/") ? line : `${menu} ${line}`);
    if (outcome.ok) applied++;
    else failures.push(`${menu} ${line.trim()} -> ${outcome.error}`);
  }
  return { commands, applied, failures };
}

/** Commands of a scripted file: lines that start with a menu path or a verb (inside a menu block). */
function commandCount(source: string): number {
  return source.split("\n").filter((line) => /^\s*(\/\S+\s+\S|add |set |remove )/.test(line)).length;
}

export async function measure(source: string): Promise<ScriptFigures> {
  let parses = true;
  try {
    parseScript(source, freshRouter().catalog);
  } catch (error) {
    if (!(error instanceof RouterOsError)) throw error;
    parses = false;
  }
  const outcome = await freshRouter().runScript(source);
  const error = outcome.ok ? {} : { error: outcome.error };
  if (isExportStyle(source))
    return { parses, runsToEnd: outcome.ok, ...error, ...(await perCommand(source)) };
  const commands = commandCount(source);
  const failedLine = outcome.ok ? undefined : outcome.line;
  const applied =
    failedLine === undefined
      ? commands
      : commandCount(
          source
            .split("\n")
            .slice(0, failedLine - 1)
            .join("\n"),
        );
  return {
    parses,
    runsToEnd: outcome.ok,
    ...error,
    commands,
    applied,
    failures: outcome.ok ? [] : [outcome.error],
  };
}
