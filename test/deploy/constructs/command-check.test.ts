import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, TerraformStack } from "cdktf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConstructValidationError,
  Fleet,
  helpers,
  RouterConfig,
  type RouterSection,
} from "../../../src/deploy/constructs/index.js";
import { ROUTER_A, ROUTER_B } from "./support.js";

const FIREWALL = [
  "/ip firewall filter add chain=input action=accept connection-state=established,related",
  "/ip firewall filter add chain=forward in-interface-lst=WAN action=drop",
];

const CORPUS = join(import.meta.dirname, "..", "..", "routeros", "simulator", "corpus");
/** The corpus files that are `/export` outputs: no variables, so they can be cut between any two commands. */
const EXPORTS = [
  "home-router.rsc",
  "office-vlans-wireguard.rsc",
  "ipv6-dual-stack.rsc",
  "dual-wan-netwatch.rsc",
];

/**
 * Cuts an export into pieces of at most 2000 characters between commands (never after a line that ends with
 * `\`), starting each piece with the menu line its first command belongs to.
 */
function sectionsOf(source: string): RouterSection[] {
  const pieces: string[] = [];
  let piece = "";
  let menu = "";
  let continued = false;
  for (const line of source.split("\n")) {
    if (!continued && piece.length + line.length + 1 > 2000) {
      pieces.push(piece);
      piece = line.startsWith("/") ? "" : menu;
    }
    if (/^\/[a-z0-9 -]+$/.test(line)) menu = line;
    piece = piece === "" ? line : `${piece}\n${line}`;
    continued = line.endsWith("\\");
  }
  pieces.push(piece);
  return pieces.map((script, index) => ({ name: `part-${index + 1}`, script }));
}

interface Annotation {
  readonly constructPath: string;
  readonly level: string;
  readonly message: string;
}

describe("the command check at synth time", () => {
  let outdir: string;
  beforeEach(() => {
    outdir = mkdtempSync(join(tmpdir(), "rj-check-"));
  });
  afterEach(() => {
    rmSync(outdir, { recursive: true, force: true });
  });

  /** Synthesizes an `office` stack as `cdktf synth` does, and returns the warnings and infos it carries. */
  function synthesize(build: (stack: TerraformStack) => void): Annotation[] {
    const app = new App({ outdir });
    build(new TerraformStack(app, "office"));
    app.synth();
    const manifest = JSON.parse(readFileSync(join(outdir, "manifest.json"), "utf8"));
    return manifest.stacks.office.annotations as Annotation[];
  }

  const router =
    (sections: RouterSection[], options: { routerOsVersion?: string; checkCommands?: boolean } = {}) =>
    (stack: TerraformStack) =>
      new RouterConfig(stack, "edge-1", { routerId: ROUTER_A, sections, ...options });

  it("fails on a misspelled argument, naming the construct, the line and the nearest valid name", () => {
    // GIVEN a section whose second line misspells in-interface-list, and no routerOsVersion (the default)
    // WHEN the stack is synthesized
    // THEN the synth fails before Terraform, with the path, the place and a suggestion
    expect(() => synthesize(router([{ name: "firewall", script: FIREWALL }]))).toThrow(
      "office/edge-1/firewall: script line 2 column 39: `in-interface-lst` is no argument of " +
        "/ip firewall filter add in RouterOS 7.24; did you mean `in-interface-list`?",
    );
  });

  it("raises it as a typed validation error, for destroy scripts too", () => {
    let error: unknown;
    try {
      synthesize(
        router([
          { name: "dns", script: helpers.dnsServers(["1.1.1.1"]), destroyScript: "/ip dns set servrs=" },
        ]),
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConstructValidationError);
    expect((error as ConstructValidationError).problems).toEqual([
      {
        field: "destroyScript",
        message:
          "line 1 column 13: `servrs` is no argument of /ip dns set in RouterOS 7.24; did you mean `servers`?",
      },
    ]);
  });

  it("accepts the helpers' scripts with no warning", () => {
    // GIVEN scripts from the helpers and no routerOsVersion
    const annotations = synthesize(
      router([
        { name: "identity", script: helpers.identity("edge-1") },
        {
          name: "firewall",
          script: helpers.firewallFilter({
            chain: "input",
            action: "drop",
            "in-interface-list": "WAN",
            comment: "x",
          }),
        },
      ]),
    );
    // THEN the synth passes, without a note about the version
    expect(annotations).toEqual([]);
  });

  it.each(EXPORTS)("synthesizes the export %s as sections, noting its version once", (file) => {
    // GIVEN a real router's export, cut into sections of at most 2000 characters at its menu lines
    const source = readFileSync(join(CORPUS, file), "utf8");
    const version = /by RouterOS (\S+)/.exec(source)?.[1] as string;
    const sections = sectionsOf(source);
    expect(sections.length).toBeGreaterThan(1);
    // WHEN declared for a router of the version the export names
    const annotations = synthesize(router(sections, { routerOsVersion: version }));
    // THEN every section passes the 7.24 tree, and the router carries one note that 7.24 stood in
    expect(annotations.map((note) => [note.constructPath, note.message.split(":")[0]])).toEqual([
      ["office/edge-1", `routerOsVersion ${version}`],
    ]);
  });

  it("falls back to the 7.24 tree for a version it has none for, with one warning per router", () => {
    // GIVEN a router on RouterOS 6.49 with two sections
    const annotations = synthesize(
      router(
        [
          { name: "identity", script: helpers.identity("edge-1") },
          { name: "dns", script: helpers.dnsServers(["1.1.1.1"]) },
        ],
        { routerOsVersion: "6.49" },
      ),
    );
    // THEN it synthesizes, and cdktf carries one warning that names the fallback
    expect(annotations).toEqual([
      {
        constructPath: "office/edge-1",
        level: "@cdktf/warn",
        message:
          "routerOsVersion 6.49: routerjobs has no command tree for RouterOS 6.49, so its scripts are checked " +
          "against RouterOS 7.24 instead (set checkCommands: false to check the syntax only)",
        stacktrace: expect.any(Array),
      },
    ]);
  });

  it("still checks scripts of a fallen-back version against 7.24, naming 7.24", () => {
    expect(() =>
      synthesize(router([{ name: "firewall", script: FIREWALL }], { routerOsVersion: "6.49.10" })),
    ).toThrow(/script line 2 column 39: .* in RouterOS 7\.24; did you mean `in-interface-list`\?/);
  });

  it("warns for a section or a fleet router that names another version, and not for 7.24's patch releases", () => {
    const annotations = synthesize((stack) => {
      new Fleet(stack, "branches", {
        routerOsVersion: "7.24.1",
        routers: [
          { name: "branch-1", routerId: ROUTER_A },
          { name: "branch-2", routerId: ROUTER_B, routerOsVersion: "7.19" },
        ],
        sections: (branch) => [
          { name: "identity", script: helpers.identity(branch.name) },
          { name: "dns", script: helpers.dnsServers(["1.1.1.1"]), routerOsVersion: "7.25" },
        ],
      });
    });
    expect(annotations.map((note) => [note.constructPath, note.message.split(":")[0]])).toEqual([
      ["office/branches/branch-1/dns", "routerOsVersion 7.25"],
      ["office/branches/branch-2", "routerOsVersion 7.19"],
      ["office/branches/branch-2/dns", "routerOsVersion 7.25"],
    ]);
  });

  it("checks the syntax only with checkCommands: false, and then does not warn about the version", () => {
    // GIVEN a script for a package outside the tree, written with a menu name the tree does not know
    const script = "/ip smb-extra set enabled=yes";
    expect(() => synthesize(router([{ name: "smb", script }]))).toThrow(
      "office/edge-1/smb: script line 1 column 5: `smb-extra` is no menu or command at /ip in RouterOS 7.24",
    );
    // WHEN the check is turned off
    const annotations = synthesize(
      router([{ name: "smb", script }], { checkCommands: false, routerOsVersion: "6.49" }),
    );
    // THEN it synthesizes without a warning, but a syntax error still fails
    expect(annotations).toEqual([]);
    expect(() => synthesize(router([{ name: "smb", script: `${script} }`, checkCommands: false }]))).toThrow(
      "office/edge-1/smb: script does not parse as RouterOS: expected end of command (line 1 column 31)",
    );
  });

  it("refuses a routerOsVersion that is no RouterOS version", () => {
    expect(() =>
      synthesize(
        router([{ name: "dns", script: "/ip dns set servers=1.1.1.1" }], { routerOsVersion: "seven" }),
      ),
    ).toThrow(
      'office/edge-1/dns: routerOsVersion must be a RouterOS version like 7.24 or 7.24.1 (got "seven")',
    );
  });
});
