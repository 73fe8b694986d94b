/**
 * Real-world RouterOS text on the simulated router: every file of `routeros-corpus/manifest.json` present
 * locally runs on a fresh router of the model it was written for (from that model's factory defaults; an
 * `/export` loads into a router without them, as the twin of a live router is built), once as a whole script
 * and once command by command. Each failure is classified against RouterOS 7.24's tree (see corpus.ts).
 * The figures are shares of the corpus, not timings: `scriptsRunToEndPct` of the scripts 7.24 accepts,
 * `commandsAppliedPct` of their commands, and each class's share of all commands.
 *
 * `CORPUS_DETAIL=1` prints every failing command.
 */

import { catalog } from "../src/routeros/simulator/catalog.js";
import type { RouterModel } from "../src/routeros/simulator/models/index.js";
import { modelNamed } from "../src/routeros/simulator/models/index.js";
import { SimulatedRouter } from "../src/routeros/simulator/router.js";
import { type BenchReport, round } from "./harness.js";
import {
  type Chunk,
  type CorpusEntry,
  chunkScript,
  chunks,
  classify,
  corpusDir,
  FAILURE_CLASSES,
  type FailureClass,
  invalidOn724,
  localCopy,
  messageShape,
  readManifest,
} from "./routeros-corpus/corpus.js";

const SCRIPT_TIMEOUT_MS = 10_000;

function modelOf(entry: CorpusEntry): RouterModel {
  const model = modelNamed(entry.model);
  // A CHR has the NICs and serial port of its virtual machine: the entry says which the author's had.
  const count = entry.ethernetPorts ?? 0;
  const ports =
    count > model.ports.length
      ? Array.from({ length: count }, (_, i) => ({ name: `ether${i + 1}`, kind: "ether" as const }))
      : model.ports;
  return { ...model, ports, serialPort: entry.serialPort ?? model.serialPort };
}

function freshRouter(entry: CorpusEntry): SimulatedRouter {
  return new SimulatedRouter({
    model: modelOf(entry),
    defaults: !entry.export,
    delayScale: 0,
    maxScriptStatements: 200_000,
    seedText: entry.path,
  });
}

interface Failure {
  readonly chunk: Chunk;
  readonly message: string;
  readonly failureClass: FailureClass;
}

interface ScriptResult {
  readonly entry: CorpusEntry;
  readonly commands: number;
  readonly applied: number;
  readonly acceptedBy724: boolean;
  /** Commands the simulated router ran although 7.24's tree rejects them (it must reject them too). */
  readonly acceptedInvalid: number;
  readonly ranToEnd: boolean;
  readonly firstFailure?: Failure;
  readonly failures: readonly Failure[];
}

async function runEntry(entry: CorpusEntry, text: string): Promise<ScriptResult> {
  const parts = chunks(text);
  const invalid = parts.map((chunk) => invalidOn724(chunkScript(chunk)) !== undefined);
  // Command by command, on one router: what an operator pasting the file into a terminal gets.
  const router = freshRouter(entry);
  const failures: Failure[] = [];
  const locals = new Set<string>();
  let applied = 0;
  let acceptedInvalid = 0;
  for (const [i, chunk] of parts.entries()) {
    const script = chunkScript(chunk);
    // A terminal knows the globals earlier lines declared. The script's earlier top-level locals are
    // declared too, without their values (gone with their line), so that the split alone fails nothing.
    const known = await globalNames(router);
    const prelude = [
      ...known.map((name) => `:global ${name}`),
      ...[...locals].filter((name) => !known.includes(name)).map((name) => `:local ${name}`),
    ];
    const declared = prelude.length > 0 ? `${prelude.join("; ")}\n${script}` : script;
    for (const match of chunk.text.matchAll(/^\s*:local\s+([A-Za-z][A-Za-z0-9_-]*)/g))
      locals.add(match[1] as string);
    const outcome = await router.runScript(declared, AbortSignal.timeout(SCRIPT_TIMEOUT_MS));
    if (outcome.ok) {
      applied++;
      if (invalid[i]) acceptedInvalid++;
      continue;
    }
    const message = outcome.error ?? "";
    failures.push({ chunk, message, failureClass: classify(declared, message, declared, catalog) });
  }
  // The whole file as one script, on a fresh router.
  const whole = await freshRouter(entry).runScript(text, AbortSignal.timeout(SCRIPT_TIMEOUT_MS));
  let firstFailure: Failure | undefined;
  if (!whole.ok) {
    const message = whole.error ?? "";
    const line = whole.line ?? 1;
    const chunk = [...parts].reverse().find((part) => part.line <= line) ?? parts[0];
    const script = chunk ? chunkScript(chunk) : text;
    firstFailure = {
      chunk: chunk ?? { line, text, menu: [] },
      message,
      failureClass: classify(text, message, script, catalog),
    };
  }
  return {
    entry,
    commands: parts.length,
    applied,
    acceptedBy724: !invalid.some(Boolean) && firstFailure?.failureClass !== "invalid on 7.24",
    acceptedInvalid,
    ranToEnd: whole.ok,
    ...(firstFailure ? { firstFailure } : {}),
    failures,
  };
}

/** The router's global variables, as `:environment print` lists them. */
async function globalNames(router: SimulatedRouter): Promise<string[]> {
  const outcome = await router.runScript(":environment print");
  if (!outcome.ok || outcome.output === "") return [];
  return outcome.output
    .split("\n")
    .map((line) => line.slice(0, line.indexOf("=")))
    .filter((name) => /^[A-Za-z][A-Za-z0-9_-]*$/.test(name));
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : round((100 * part) / whole, 1));

/** Which set an entry belongs to: the corpus the simulator was tuned on, or the held-out set. */
const SETS = [
  { name: "tuned", label: "tuned set (the corpus the simulator was fixed against)", prefix: "" },
  {
    name: "holdout",
    label: "held-out set (other repositories, measured before fixing for them)",
    prefix: "holdout",
  },
] as const;

const setOf = (entry: CorpusEntry) => (entry.set === "holdout" ? "holdout" : "tuned");

function metricKey(prefix: string, key: string): string {
  return prefix === "" ? key : `${prefix}${key[0]?.toUpperCase()}${key.slice(1)}`;
}

/** One set's figures and table: its keys carry the set's prefix, so the tuned set's keep their old names. */
function summarize(
  prefix: string,
  label: string,
  entries: number,
  results: readonly ScriptResult[],
  missing: number,
): { metrics: Record<string, number>; lines: string[] } {
  const key = (name: string) => metricKey(prefix, name);
  const accepted = results.filter((result) => result.acceptedBy724);
  const ranToEnd = accepted.filter((result) => result.ranToEnd).length;
  const acceptedCommands = accepted.reduce((sum, result) => sum + result.commands, 0);
  const acceptedApplied = accepted.reduce((sum, result) => sum + result.applied, 0);
  const allCommands = results.reduce((sum, result) => sum + result.commands, 0);
  const acceptedInvalid = results.reduce((sum, result) => sum + result.acceptedInvalid, 0);

  const metrics: Record<string, number> = {
    [key("manifestEntries")]: entries,
    [key("present")]: results.length,
    [key("missing")]: missing,
    [key("scriptsAcceptedBy724")]: accepted.length,
    [key("scriptsRunToEnd")]: ranToEnd,
    [key("scriptsRunToEndPct")]: pct(ranToEnd, accepted.length),
    [key("commands")]: allCommands,
    [key("commandsOfAccepted")]: acceptedCommands,
    [key("commandsAppliedPct")]: pct(acceptedApplied, acceptedCommands),
    [key("acceptedThough724Rejects")]: acceptedInvalid,
  };
  const lines = [
    `${label}: ${entries} entries, ${results.length} present, ${missing} missing locally`,
    `scripts accepted by 7.24: ${accepted.length} of ${results.length}; run to the end: ${ranToEnd} (${metrics[key("scriptsRunToEndPct")]}%)`,
    `commands of accepted scripts applied one by one: ${acceptedApplied} of ${acceptedCommands} (${metrics[key("commandsAppliedPct")]}%)`,
    `commands the simulator ran though 7.24 rejects them: ${acceptedInvalid}`,
    "",
    `${"class".padEnd(16)} ${"scripts stopped".padStart(15)} ${"commands".padStart(9)} ${"% of all".padStart(8)}  top messages`,
  ];
  for (const failureClass of FAILURE_CLASSES) {
    const classKey = failureClass
      .replace(/[^a-z0-9]+(.)/g, (_, c: string) => c.toUpperCase())
      .replace(/^(\d)/, "v$1");
    const stopped = results.filter((result) => result.firstFailure?.failureClass === failureClass).length;
    const failing = results.flatMap((result) =>
      result.failures.filter((f) => f.failureClass === failureClass),
    );
    metrics[key(`${classKey}ScriptsStopped`)] = stopped;
    metrics[key(`${classKey}Commands`)] = failing.length;
    const share = pct(failing.length, allCommands);
    metrics[key(`${classKey}CommandsPct`)] = share;
    const shapes = new Map<string, number>();
    for (const failure of failing) {
      const shape = messageShape(failure.message);
      shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    }
    const top = [...shapes.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([shape, count]) => `${count}× ${shape}`)
      .join("; ");
    lines.push(
      `${failureClass.padEnd(16)} ${String(stopped).padStart(15)} ${String(failing.length).padStart(9)} ${`${share}%`.padStart(8)}  ${top}`,
    );
  }
  return { metrics, lines };
}

export async function run(): Promise<BenchReport> {
  const manifest = await readManifest();
  const results: ScriptResult[] = [];
  const missingBySet = new Map<string, number>();
  const changed: string[] = [];
  for (const entry of manifest.entries) {
    const copy = await localCopy(entry);
    if (copy.state === "missing") {
      missingBySet.set(setOf(entry), (missingBySet.get(setOf(entry)) ?? 0) + 1);
      continue;
    }
    if (copy.state === "changed") changed.push(`${entry.repo}/${entry.path}`);
    results.push(await runEntry(entry, copy.text));
  }
  const metrics: Record<string, number> = { changed: changed.length };
  const lines = [
    `${manifest.entries.length} manifest entries, local copies in ${corpusDir()}` +
      (changed.length > 0
        ? `; ${changed.length} changed since the manifest (sha256): ${changed.join(", ")}`
        : ""),
  ];
  for (const set of SETS) {
    const summary = summarize(
      set.prefix,
      set.label,
      manifest.entries.filter((entry) => setOf(entry) === set.name).length,
      results.filter((result) => setOf(result.entry) === set.name),
      missingBySet.get(set.name) ?? 0,
    );
    Object.assign(metrics, summary.metrics);
    lines.push("", ...summary.lines);
  }
  if (process.env.CORPUS_DETAIL) {
    for (const result of results) {
      const head = `${result.ranToEnd ? "ok  " : "STOP"} ${result.entry.repo}/${result.entry.path} (${result.entry.model}${result.entry.export ? ", export" : ""}): ${result.applied}/${result.commands}`;
      lines.push("", head);
      if (result.firstFailure)
        lines.push(
          `  first: [${result.firstFailure.failureClass}] line ${result.firstFailure.chunk.line}: ${result.firstFailure.message}`,
        );
      for (const failure of result.failures)
        lines.push(
          `  [${failure.failureClass}] line ${failure.chunk.line}: ${failure.message} :: ${failure.chunk.text.slice(0, 160).replace(/\s+/g, " ")}`,
        );
    }
  }
  return { title: "RouterOS real-world corpus on the simulated router", metrics, lines };
}
