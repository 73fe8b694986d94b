/**
 * RouterOS language throughput: parsing a job-sized script (~2,000 characters, the service's limit) and a
 * 5,000-line `export`-style script, and running the job script against a host that does nothing. Baseline:
 * `JSON.parse` of a JSON document of the same size, in the same run; ratios say how many times slower we are.
 * Then the `~` operator: its matcher (RE2, src/routeros/runtime/regex.ts) against JavaScript's RegExp on the patterns
 * of configuration scripts, and a loop of `~` against the same loop comparing with `=`.
 */
import type { Statement } from "../src/routeros/language/ast.js";
import { permissiveCatalog } from "../src/routeros/language/default-catalog.js";
import type { CommandHost } from "../src/routeros/language/host.js";
import { parseScript } from "../src/routeros/language/parser.js";
import { runScript } from "../src/routeros/runtime/interpreter.js";
import { compileRegex } from "../src/routeros/runtime/regex.js";
import { type BenchReport, opsPerSecond, round } from "./harness.js";

/** A realistic job: interfaces, addresses, firewall, guarded removal, a loop; cut at about 2,000 characters. */
function jobScript(): string {
  const lines = [
    "/system identity set name=branch-office-17",
    '/interface ethernet set [find default-name=ether1] name=wan comment="uplink to ISP"',
    ':local lan "bridge-lan"',
    "/interface bridge add name=$lan protocol-mode=rstp",
    ':foreach port in={"ether2";"ether3"} do={ :log info "port $port" }',
  ];
  for (let i = 2; lines.join("\n").length < 1900; i++) {
    lines.push(
      `:do { /ip address add address=10.${i}.0.1/24 interface=ether${i} comment="site ${i}; vlan" } on-error={ :log warning "address ${i} exists" }`,
      `/ip firewall filter add chain=forward src-address=10.${i}.0.0/24 action=accept disabled=no`,
      `:if ([:len [/ip route find where dst-address=10.${i}.0.0/24]] = 0) do={ /ip route add dst-address=10.${i}.0.0/24 gateway=10.0.0.${i} }`,
    );
  }
  return lines.join("\n");
}

/** `export` output: a menu line, then `add` lines, section after section. */
function exportScript(lineCount: number): string {
  const menus = [
    "/ip address",
    "/ip firewall filter",
    "/ip route",
    "/interface vlan",
    "/ip dhcp-server lease",
  ];
  const lines: string[] = [];
  for (let i = 0; lines.length < lineCount; i++) {
    if (i % 500 === 0) lines.push(menus[(i / 500) % menus.length] as string);
    lines.push(
      `add address=10.${(i >> 8) & 255}.${i & 255}.1/24 comment="entry ${i}" disabled=no interface=ether${i % 8} mac-address=00:11:22:33:${(i % 256).toString(16).padStart(2, "0")}:FF`,
    );
  }
  return lines.join("\n");
}

function countCommands(statements: readonly Statement[]): number {
  let count = 0;
  for (const statement of statements) {
    if (statement.kind === "block") count += countCommands(statement.block.statements);
    else if (statement.kind === "do" || statement.kind === "if" || statement.kind === "foreach")
      count += 1 + countCommands(statement.body.statements);
    else count++;
  }
  return count;
}

/** A JSON document of about `size` characters, shaped like configuration records. */
function jsonOfSize(size: number): string {
  const records: object[] = [];
  let length = 2;
  for (let i = 0; length < size; i++) {
    const record = {
      menu: "/ip/address",
      address: `10.0.${i & 255}.1/24`,
      interface: `ether${i % 8}`,
      comment: `entry ${i}`,
      disabled: false,
    };
    records.push(record);
    length += JSON.stringify(record).length + 1;
  }
  return JSON.stringify(records);
}

/** Patterns and subjects as configuration scripts have them: names, versions, comments, addresses. */
const TYPICAL_MATCHES: ReadonlyArray<readonly [pattern: string, subject: string]> = [
  ["^ether[0-9]+$", "ether12"],
  ["^(ether|sfp|qsfp)[0-9]+(-[0-9]+)?$", "sfp28-1"],
  ["^7\\.(1[5-9]|2[0-9])", "7.24.1 (stable)"],
  ["uplink|ISP", "site 17; vlan 20; uplink to the ISP"],
  ["^[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}/24$", "10.17.0.1/24"],
  ["[[:space:]]auto$", "blocked by rule 12 auto"],
];

/** The `~` matcher against RegExp, cached patterns both; a script loop of `~` against the loop with `=`. */
async function regexMatching(metrics: Record<string, number>): Promise<string[]> {
  const ours = TYPICAL_MATCHES.map(([pattern, subject]) => [compileRegex(pattern), subject] as const);
  const theirs = TYPICAL_MATCHES.map(([pattern, subject]) => [new RegExp(pattern, "s"), subject] as const);
  const countMatches = (pairs: ReadonlyArray<readonly [{ test(text: string): boolean }, string]>) =>
    pairs.filter(([regex, subject]) => regex.test(subject)).length;
  const oursOps = await opsPerSecond(() => countMatches(ours), 1500);
  const theirsOps = await opsPerSecond(() => countMatches(theirs), 1500);
  metrics.regexMatchesPerSec = round(oursOps * ours.length, 0);
  metrics.regexVsRegExpRatio = round(theirsOps / oursOps);
  const loop = (operator: string) =>
    `:local n 0\n:foreach name in={"ether1";"ether2";"sfp1";"bridge";"wlan1";"ether10"} do={ :for i from=1 to=50 do={ :if ($name ${operator} "^ether[0-9]+\\$") do={ :set n ($n + 1) } } }`;
  const tildeOps = await opsPerSecond(() => runScript(loop("~"), noopHost), 1500);
  const equalsOps = await opsPerSecond(() => runScript(loop("="), noopHost), 1500);
  metrics.tildeLoopRunsPerSec = round(tildeOps, 0);
  metrics.tildeLoopVsEqualsRatio = round(equalsOps / tildeOps);
  return [
    `~ matcher (RE2): ${metrics.regexMatchesPerSec} matches/s of ${ours.length} typical patterns, ${metrics.regexVsRegExpRatio}x the time of RegExp`,
    `a loop of 300 \`:if ($name ~ ...)\`: ${metrics.tildeLoopRunsPerSec} runs/s, ${metrics.tildeLoopVsEqualsRatio}x the time of the same loop with =`,
  ];
}

const noopHost: CommandHost = {
  catalog: permissiveCatalog,
  execute: () => ({}),
  log: () => undefined,
  delay: async () => undefined,
};

export async function run(): Promise<BenchReport> {
  const metrics: Record<string, number> = {};
  const lines: string[] = [];
  const cases = [
    { name: "job", source: jobScript() },
    { name: "export", source: exportScript(5000) },
  ];
  for (const { name, source } of cases) {
    const commands = countCommands(parseScript(source).body.statements);
    const json = jsonOfSize(source.length);
    const parseOps = await opsPerSecond(() => parseScript(source), 1500);
    const jsonOps = await opsPerSecond(() => JSON.parse(json), 1500);
    metrics[`${name}Chars`] = source.length;
    metrics[`${name}ParseCommandsPerSec`] = round(parseOps * commands, 0);
    metrics[`${name}ParseMbPerSec`] = round((parseOps * source.length) / 1e6);
    metrics[`${name}JsonParseMbPerSec`] = round((jsonOps * json.length) / 1e6);
    metrics[`${name}ParseVsJsonRatio`] = round(jsonOps / parseOps);
    lines.push(
      `${name}: ${source.length} chars, ${commands} commands: parse ${metrics[`${name}ParseCommandsPerSec`]} commands/s ` +
        `(${metrics[`${name}ParseMbPerSec`]} MB/s); JSON.parse ${metrics[`${name}JsonParseMbPerSec`]} MB/s; ` +
        `parse is ${metrics[`${name}ParseVsJsonRatio`]}x slower than JSON.parse`,
    );
  }
  const job = cases[0]?.source ?? "";
  const runOps = await opsPerSecond(() => runScript(job, noopHost), 1500);
  const jobParseOps = await opsPerSecond(() => parseScript(job), 1500);
  metrics.jobRunsPerSec = round(runOps, 0);
  metrics.jobRunVsParseRatio = round(jobParseOps / runOps);
  lines.push(
    `job run (no-op host): ${metrics.jobRunsPerSec} scripts/s, ${metrics.jobRunVsParseRatio}x the parse time alone`,
  );
  lines.push(...(await regexMatching(metrics)));
  return { title: "RouterOS parse and run throughput vs JSON.parse", metrics, lines };
}
