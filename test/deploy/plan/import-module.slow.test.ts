/**
 * `routerjobs import` writing typed helper calls where a helper does what the guarded line does, and the
 * guarded line everywhere else. What a line does is checked on a simulated router, not by reading the text.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { SCRIPT_MAX_CHARS } from "../../../src/contract/limits.js";
import { parseExport } from "../../../src/deploy/plan/export-diff.js";
import {
  type ImportedLine,
  type ImportedSection,
  idempotentLine,
  importModule,
  importSections,
} from "../../../src/deploy/plan/import-module.js";
import * as helpers from "../../../src/routeros/build/helpers/index.js";
import { quoteValue } from "../../../src/routeros/language/quote.js";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { homeRouter, officeVlans } from "./fixtures.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * The script a written helper call yields. The call is an expression of JSON literals, so plain JavaScript
 * evaluates it as TypeScript would; the module as a whole is type-checked below.
 */
function evaluate(call: string): string {
  return new Function("helpers", `return ${call};`)(helpers) as string;
}

/** `vlan` for `helpers.vlan({ ... })`, `raw` for a guarded line. */
const kind = (line: ImportedLine) => line.call?.match(/^helpers\.(\w+)\(/)?.[1] ?? "raw";
/** Section -> its lines' kinds, the sections of a menu split for size (`-2`, `-3`) joined again. */
const kinds = (sections: readonly ImportedSection[]) => {
  const out: Record<string, string[]> = {};
  for (const section of sections) {
    const name = section.name.replace(/-\d+$/, "");
    out[name] = [...(out[name] ?? []), ...section.lines.map(kind)];
  }
  return out;
};
const times = <T>(count: number, value: T): T[] => Array.from({ length: count }, () => value);

/** The export's lines with their menu, in the order importSections writes them. */
const exportLines = (text: string) =>
  [...parseExport(text)].flatMap(([menu, lines]) =>
    menu === "" ? [] : lines.map((line) => ({ menu, line })),
  );

const backend = new SimulatedBackend({ seed: 3 });
let routers = 0;

/**
 * A fresh simulated router after each script ran in turn: what each one answered (`ok`, or its error) and the
 * export at the end.
 */
async function outcome(scripts: readonly string[]): Promise<{ answers: string[]; export: string }> {
  const id = `router-${++routers}`;
  await backend.attach(id, { name: "imported" });
  try {
    const answers: string[] = [];
    for (const script of scripts) {
      const answer = await backend.runScript(id, script);
      answers.push(answer.ok ? "ok" : JSON.stringify(answer));
    }
    const [record] = await backend.command(id, "/export");
    return { answers, export: String(record?.ret) };
  } finally {
    await backend.detach(id);
  }
}

/** The export of a fresh simulated router after each script ran, in turn (each must succeed). */
async function configured(scripts: readonly string[]): Promise<string> {
  const { answers, export: text } = await outcome(scripts);
  expect(answers).toEqual(times(scripts.length, "ok"));
  return text;
}

/**
 * Changes by hand on a router configured as exported: a comment on every item of the menus with a helper (where
 * a guard on all properties and a helper's narrower key part ways) and the singletons' values.
 */
const drift = [
  ...[
    "/interface bridge",
    "/interface vlan",
    "/interface list",
    "/interface list member",
    "/ip pool",
    "/ip address",
    "/ip firewall address-list",
    "/ip dhcp-server",
    "/ip dhcp-server network",
    "/interface bridge port",
  ].map((menu) => `${menu} set [find] comment=drifted`),
  "/ip dns set servers=8.8.8.8 allow-remote-requests=no",
  "/system identity set name=drifted",
].join("\n");

describe("importSections", () => {
  it("writes the mapped menus' lines of a realistic export as helper calls, the others as guarded lines", () => {
    const office = kinds(importSections(officeVlans));
    const expected: Record<string, string[]> = {
      "interface-vlan": times(4, "vlan"),
      "interface-list": times(3, "interfaceList"),
      "ip-pool": times(3, "ipPool"),
      "ip-dhcp-server": times(3, "dhcpServer"),
      "interface-list-member": times(6, "interfaceListMember"),
      "ip-dns": ["dnsServers"],
      "ip-firewall-address-list": times(3, "addressList"),
      "system-identity": ["identity"],
      // A property the helper does not take: arp-timeout= on the bridge, network= on every address.
      "interface-bridge": ["raw"],
      "ip-address": times(6, "raw"),
      // enabled= without servers=: ntpClient always writes servers=.
      "system-ntp-client": ["raw"],
      // Helpers that find by a narrower key than the guarded line (all properties): kept raw by design.
      "interface-bridge-port": times(3, "raw"),
      "ip-dhcp-server-network": times(3, "raw"),
      "ip-firewall-filter": times(10, "raw"),
      "ip-firewall-nat": ["raw"],
    };
    expect(office).toMatchObject(expected);
    // Every other menu has no helper: all raw.
    const others = Object.entries(office).filter(([name]) => !(name in expected));
    expect(others.length).toBeGreaterThan(10);
    for (const [name, lines] of others)
      expect({ name, lines }).toEqual({ name, lines: times(lines.length, "raw") });

    // A comment is a property the name-keyed helper sets too; a list member's comment widens the guard's key.
    expect(kinds(importSections(homeRouter))).toMatchObject({
      "interface-list": times(2, "interfaceList"),
      "interface-list-member": times(2, "raw"),
      "ip-dns": ["dnsServers"],
      "system-identity": ["identity"],
    });
  });

  it("keeps unmapped lines exactly as before, and a helper call yields the script counted for it", () => {
    for (const text of [officeVlans, homeRouter]) {
      const written = importSections(text).flatMap((section) => section.lines);
      const source = exportLines(text);
      expect(written).toHaveLength(source.length);
      written.forEach((line, i) => {
        const { menu, line: exported } = source[i] as { menu: string; line: string };
        if (line.call === undefined) expect(line.script).toBe(idempotentLine(menu, exported));
        else expect(evaluate(line.call)).toBe(line.script);
      });
    }
  });

  it("configures a router as the guarded lines do, also one changed by hand, and converges", async () => {
    for (const text of [officeVlans, homeRouter]) {
      const raw = exportLines(text).map(({ menu, line }) => idempotentLine(menu, line));
      const imported = importSections(text).map((section) =>
        section.lines.map((line) => (line.call === undefined ? line.script : evaluate(line.call))).join("\n"),
      );
      const once = await configured(imported);
      expect(once).toBe(await configured(raw));
      expect(await configured([...imported, ...imported])).toBe(once);
      // Line by line, so that a line that fails on the drifted router fails alike and the others still run.
      const drifted = await outcome([...raw, drift, ...imported.flatMap((script) => script.split("\n"))]);
      expect(drifted.answers[raw.length]).toBe("ok");
      expect(drifted).toEqual(await outcome([...raw, drift, ...raw]));
    }
  });

  it("leaves a line raw when its values do not fit the helper's types", () => {
    const text = [
      "/interface vlan",
      "add interface=br-core name=v1 vlan-id=010", // not a number as written
      "add interface=br-core mtu=1400 name=v2 vlan-id=20", // mtu: the helper does not take it
      'add interface=br-core name="v$x" vlan-id=30', // a variable, not a value
      "add interface=br-core name=v4 vlan-id=40",
      "/interface bridge",
      "add name=br vlan-filtering=maybe",
    ].join("\n");
    expect(kinds(importSections(text))).toEqual({
      "interface-vlan": ["raw", "raw", "raw", "vlan"],
      "interface-bridge": ["raw"],
    });
  });

  it("string values with quotes, spaces, $ and backslashes: the call yields a line doing what the raw one does", async () => {
    // Printable text rich in what RouterOS and TypeScript quote differently, runs of spaces included.
    const value = fc.string({
      unit: fc.constantFrom(..."ab Z09-_.\"\\$;{}[]?'`/=!é".split("")),
      minLength: 1,
      maxLength: 24,
    });
    const shapes = [
      {
        helper: "vlan",
        text: (v: string) =>
          `/interface vlan\nadd comment=${quoteValue(v)} interface=ether1 name=${quoteValue(`v ${v}`)} vlan-id=7`,
      },
      { helper: "identity", text: (v: string) => `/system identity\nset name=${quoteValue(v)}` },
      {
        helper: "addressList",
        text: (v: string) => `/ip firewall address-list\nadd address=10.1.2.3 list=${quoteValue(v)}`,
      },
    ];
    await fc.assert(
      fc.asyncProperty(value, fc.constantFrom(...shapes), async (v, shape) => {
        const text = shape.text(v);
        const [section] = importSections(text);
        const [line] = section?.lines ?? [];
        expect(line && kind(line)).toBe(shape.helper);
        const call = line?.call ?? "";
        const script = evaluate(call);
        expect(script).toBe(line?.script);
        const [[menu, [exported]]] = [...parseExport(text)] as [[string, [string]]];
        const helperExport = await configured([script, script]);
        expect(helperExport).toBe(await configured([idempotentLine(menu, exported)]));
        expect(helperExport).toContain(quoteValue(v));
      }),
      { numRuns: 150 },
    );
  });

  it("splits a menu on the size of the helpers' lines, at most SCRIPT_MAX_CHARS a section", () => {
    const lines = Array.from(
      { length: 60 },
      (_, i) =>
        `add comment="vlan number ${i} of the office" interface=br-core name=vlan${i} vlan-id=${i + 2}`,
    );
    const sections = importSections(`/interface vlan\n${lines.join("\n")}`);
    expect(sections.length).toBeGreaterThan(2);
    expect(sections.map((section) => section.name)).toEqual(
      sections.map((_, i) => (i === 0 ? "interface-vlan" : `interface-vlan-${i + 1}`)),
    );
    const scripts = sections.map((section) => section.lines.map((line) => line.script));
    for (const [i, section] of sections.entries()) {
      expect(section.lines.every((line) => line.call !== undefined)).toBe(true);
      const joined = scripts[i]?.join("\n") ?? "";
      expect(joined.length).toBeLessThanOrEqual(SCRIPT_MAX_CHARS);
      // Full: the next section's first line would not have fitted.
      const next = scripts[i + 1]?.[0];
      if (next !== undefined) expect(joined.length + 1 + next.length).toBeGreaterThan(SCRIPT_MAX_CHARS);
    }
  });
});

describe("importModule", () => {
  it("imports helpers from the constructs module it imports RouterConfig from, only when it calls one", () => {
    const options = { routerId: "r1", constructsModule: "@acme/constructs" };
    expect(importModule("/system identity\nset name=gw", options)).toContain(
      'import { helpers, RouterConfig } from "@acme/constructs";',
    );
    const raw = importModule("/ip firewall filter\nadd action=drop chain=input", options);
    expect(raw).toContain('import { RouterConfig } from "@acme/constructs";');
    expect(raw).not.toContain("helpers");
  });

  it("writes a module that type-checks against the published constructs (dist/, built by the test setup)", () => {
    const dir = mkdtempSync(join(tmpdir(), "rj-import-types-"));
    dirs.push(dir);
    const files = [officeVlans, homeRouter].map((text, i) => {
      const file = join(dir, `imported-${i}.ts`);
      const constructsModule = new URL("../../../dist/deploy/constructs/index.js", import.meta.url).pathname;
      const module = importModule(text, { routerId: `r${i}`, constructsModule });
      expect(module).toContain("helpers.");
      writeFileSync(file, module);
      return file;
    });
    // The temporary folder has no node_modules: `constructs` is found where this repository has it.
    const constructs = createRequire(import.meta.url)
      .resolve("constructs")
      .replace(/\.js$/, ".d.ts");
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      noUncheckedIndexedAccess: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2023,
      skipLibCheck: true,
      types: [],
      paths: { constructs: [constructs] },
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    expect(errors).toEqual([]);
  });
});
