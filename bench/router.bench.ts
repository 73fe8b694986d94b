/**
 * The simulated router's run cost against the cost of only parsing the same script (the language's floor):
 * a 2,000-character configuration job (the spec's maximum script size) and a 5,000-line export replayed on a
 * reset router. ratio = run time / parse time; commands/s counts router commands executed.
 */
import { parseScript } from "../src/routeros/language/parser.js";
import { catalog } from "../src/routeros/simulator/catalog.js";
import { SimulatedRouter } from "../src/routeros/simulator/router.js";
import { type BenchReport, opsPerSecond, round } from "./harness.js";

/** A job script of exactly `size` characters: realistic commands, distinct values, cut at a line end. */
function configScript(size: number): string {
  const lines = [
    "/interface bridge add name=bridge-lan",
    "/interface list add name=LAN",
    "/interface list member add list=LAN interface=bridge-lan",
  ];
  for (let i = 0; lines.join("\n").length < size; i++) {
    lines.push(
      `/ip address add address=10.${i}.0.1/24 interface=bridge-lan comment="net ${i}"`,
      `/ip firewall address-list add list=allowed address=192.0.${i}.0/24`,
      `/ip firewall filter add chain=input action=accept src-address=10.${i}.0.0/24 protocol=tcp dst-port=22`,
    );
  }
  let text = lines.join("\n");
  while (text.length > size) text = text.slice(0, text.lastIndexOf("\n"));
  return text.padEnd(size, " ");
}

/** An export of at least `lines` lines, from a router configured item by item below the language. */
async function largeExport(lines: number): Promise<string> {
  const router = new SimulatedRouter({ name: "bench" });
  const add = (menu: string[], named: Record<string, string>) =>
    router.execute({
      menu,
      verb: "add",
      positional: [],
      named: new Map(Object.entries(named)),
      line: 1,
      column: 1,
    });
  for (let i = 0; i < lines / 4; i++) {
    const [a, b] = [Math.floor(i / 250), i % 250];
    await add(["ip", "firewall", "address-list"], { list: `list${a}`, address: `10.${a}.${b}.0/24` });
    await add(["ip", "firewall", "filter"], {
      chain: "forward",
      action: "drop",
      "src-address": `10.${a}.${b}.0/24`,
    });
    await add(["ip", "dns", "static"], { name: `host${i}.lan`, address: `172.16.${a}.${b}` });
    await add(["ip", "pool"], { name: `pool${i}`, ranges: `10.${a}.${b}.10-10.${a}.${b}.20` });
  }
  return (await router.runScript("/export")).output;
}

function countCommands(source: string): number {
  return source.split("\n").filter((line) => /^(\/|add |set )/.test(line.trim())).length;
}

async function measure(label: string, source: string, minMs: number) {
  const commands = countCommands(source);
  const parsePerSec = await opsPerSecond(() => parseScript(source, catalog), minMs, 3);
  const runPerSec = await opsPerSecond(
    async () => {
      const outcome = await new SimulatedRouter({ name: "bench" }).runScript(source);
      if (!outcome.ok) throw new Error(`${label} failed: ${outcome.error}`);
    },
    minMs,
    3,
  );
  return {
    commands,
    parsePerSec,
    runPerSec,
    ratio: parsePerSec / runPerSec,
    commandsPerSec: runPerSec * commands,
  };
}

export async function run(): Promise<BenchReport> {
  const job = await measure("job", configScript(2000), 2000);
  const exported = await largeExport(5000);
  const replay = await measure("replay", exported, 4000);
  const exportLines = exported.split("\n").length;
  return {
    title: "simulated router: run vs parse",
    metrics: {
      jobCommands: job.commands,
      jobRunsPerSec: round(job.runPerSec),
      jobCommandsPerSec: round(job.commandsPerSec),
      jobParsesPerSec: round(job.parsePerSec),
      jobRatio: round(job.ratio),
      replayLines: exportLines,
      replayRunsPerSec: round(replay.runPerSec, 3),
      replayCommandsPerSec: round(replay.commandsPerSec),
      replayParsesPerSec: round(replay.parsePerSec, 3),
      replayRatio: round(replay.ratio),
    },
    lines: [
      `2,000-char job (${job.commands} commands): ${round(job.runPerSec)} runs/s = ${round(job.commandsPerSec)} commands/s; parse only ${round(job.parsePerSec)}/s; ratio run/parse ${round(job.ratio)}`,
      `${exportLines}-line export replay (${replay.commands} commands): ${round(replay.runPerSec, 3)} runs/s = ${round(replay.commandsPerSec)} commands/s; parse only ${round(replay.parsePerSec, 3)}/s; ratio run/parse ${round(replay.ratio)}`,
    ],
  };
}
