/**
 * What the published tarball holds (`npm pack --dry-run`, the files list npm would publish) and what its
 * package.json says: a licence, a changelog for this version, metadata that leads to the repository, every
 * file the README and the CLI's messages point to, nothing that points at files it does not ship (source
 * maps), no declaration file that spells data out as a type, and `engines` that its dependencies and
 * `@types/node` agree with (docs/packaging.md).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { exportedEntries, reachedFiles } from "../../scripts/package-files.mjs";
import { npm } from "../helpers/npm.js";

const ROOT = join(import.meta.dirname, "..", "..");

interface PackedFile {
  readonly path: string;
  readonly size: number;
}

interface PackageJson {
  readonly version: string;
  readonly license: string;
  readonly author?: string;
  readonly homepage?: string;
  readonly repository?: { readonly url: string };
  readonly bugs?: { readonly url: string };
  readonly keywords?: readonly string[];
  readonly engines: { readonly node: string };
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;

/** `>=22.19.0` or `^22.19.0` as [22, 19]. */
function lowest(range: string): [number, number] {
  const [, major = "0", minor = "0"] = /^(?:>=|\^|~)?\s*(\d+)(?:\.(\d+))?/.exec(range) ?? [];
  return [Number(major), Number(minor)];
}

describe("the published tarball", () => {
  let files: PackedFile[];
  let paths: Set<string>;

  beforeAll(async () => {
    // --ignore-scripts: the global setup built dist/; `prepare` would rebuild it under the tests beside this one.
    const { stdout } = await npm(["pack", "--dry-run", "--ignore-scripts", "--json"], ROOT);
    files = (JSON.parse(stdout) as { files: PackedFile[] }[])[0]?.files ?? [];
    paths = new Set(files.map((file) => file.path));
  });

  it("holds the MIT licence, and a changelog whose first entry is this version", () => {
    expect(paths).toContain("LICENSE");
    const licence = readFileSync(join(ROOT, "LICENSE"), "utf8");
    expect(pkg.license).toBe("MIT");
    expect(licence).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} routerjobs contributors\n/);
    expect(paths).toContain("CHANGELOG.md");
    const changelog = readFileSync(join(ROOT, "CHANGELOG.md"), "utf8");
    expect(changelog.match(/^## (\S+)/m)?.[1]).toBe(pkg.version);
  });

  it("says where the repository, its issues and its home are, who wrote it, and what it is about", () => {
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\/\S+\.git$/);
    const repository = (pkg.repository?.url ?? "").replace(/^git\+/, "").replace(/\.git$/, "");
    expect(pkg.homepage).toBe(`${repository}#readme`);
    expect(pkg.bugs?.url).toBe(`${repository}/issues`);
    expect(pkg.author).toBe("routerjobs contributors");
    expect(pkg.keywords).toEqual(
      expect.arrayContaining(["routeros", "mikrotik", "cdktf", "cdktn", "terraform"]),
    );
  });

  it("ships every file the README links to (npm's site resolves the links against the repository)", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    // Links, not images: the portal's screenshots stay in the repository, where npm's site shows them from.
    const targets = [...readme.matchAll(/(?<!!)\[[^\]]*\]\(([^)\s]+)\)/g)]
      .map(([, target]) => (target as string).replace(/#.*$/, ""))
      .filter((target) => target !== "" && !/^[a-z]+:/.test(target));
    expect(targets.length).toBeGreaterThan(10);
    // The layout of src/ is for contributors, who read it in the repository (the package ships no source).
    const missing = targets.filter(
      (target) =>
        !target.startsWith("src/") &&
        !paths.has(target) &&
        ![...paths].some((path) => path.startsWith(`${target.replace(/\/$/, "")}/`)),
    );
    expect(missing).toEqual([]);
  });

  it("ships every docs/ and examples/ file that the CLI's help and messages name", () => {
    const bundle = files
      .filter((file) => file.path.startsWith("dist/bundle/"))
      .map((file) => readFileSync(join(ROOT, file.path), "utf8"))
      .join("\n");
    const named = new Set(
      // Not inside a longer path: the bundled JSON Schema validator has `#/properties/examples/type`.
      [...bundle.matchAll(/(?<![\w/#.-])(?:docs\/[\w-]+\.md|examples\/[\w-]+)/g)].map(([name]) => name),
    );
    expect(named.size).toBeGreaterThan(3);
    const missing = [...named].filter(
      (name) => !paths.has(name) && ![...paths].some((path) => path.startsWith(`${name}/`)),
    );
    expect(missing).toEqual([]);
  });

  it("ships of dist/ the bundle whole and, of tsc's output, exactly what the exports' imports reach", () => {
    const bundle = readdirSync(join(ROOT, "dist", "bundle")).map((name) => `dist/bundle/${name}`);
    expect(bundle.filter((path) => !paths.has(path))).toEqual([]);
    const compiled = [...paths].filter(
      (path) => path.startsWith("dist/") && !path.startsWith("dist/bundle/"),
    );
    const reached = reachedFiles(exportedEntries()).map((file) => `dist/${file}`);
    expect(reached).toEqual(expect.arrayContaining(["dist/index.js", "dist/deploy/constructs/index.d.ts"]));
    expect(compiled.sort()).toEqual(reached);
    // The service, the simulator and the CLI's modules run from the bundle only: their tsc output stays home.
    for (const folder of ["dist/service/", "dist/routeros/simulator/", "dist/cli/", "dist/deploy/provider/"])
      expect(
        compiled.filter((path) => path.startsWith(folder)),
        folder,
      ).toEqual([]);
  });

  it("holds no source map (the sources they point at are not shipped) and no build state", () => {
    expect(files.filter((file) => file.path.endsWith(".map")).map((file) => file.path)).toEqual([]);
    expect(paths).not.toContain("dist/.tsbuildinfo");
  });

  it("declares the RouterOS catalog as a string, not as its text spelled out as a type", () => {
    // Built whether or not the tarball ships it (only the package's exports' declarations ship).
    expect(readFileSync(join(ROOT, "dist/routeros/catalog/routeros-7.24.d.ts"), "utf8")).toContain(
      "export declare const catalogJson: string;",
    );
    const declarations = files.filter((file) => file.path.endsWith(".d.ts"));
    const largest = declarations.reduce((a, b) => (b.size > a.size ? b : a));
    expect(largest.size, largest.path).toBeLessThan(32 * 1024);
  });

  it("asks for a Node that every dependency supports, and is typed against that Node", () => {
    const [major, minor] = lowest(pkg.engines.node);
    for (const name of Object.keys(pkg.dependencies)) {
      const dependency = JSON.parse(
        readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8"),
      ) as {
        engines?: { node?: string };
      };
      if (!dependency.engines?.node) continue;
      const [needMajor, needMinor] = lowest(dependency.engines.node);
      expect(
        major > needMajor || (major === needMajor && minor >= needMinor),
        `${name} needs Node ${dependency.engines.node}`,
      ).toBe(true);
    }
    // The lowest Node routerjobs runs on is the one its code is type-checked against.
    expect(lowest(pkg.devDependencies["@types/node"] as string)).toEqual([major, minor]);
    // cdktn-cli, which a CDK Terrain app synthesizes with, needs 22.19 (and so does undici 8).
    expect(major > 22 || (major === 22 && minor >= 19), pkg.engines.node).toBe(true);
  });
});
