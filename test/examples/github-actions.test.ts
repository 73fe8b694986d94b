/**
 * examples/github-actions/deploy.yml, read as text (no YAML parser is a dependency): the rules the example
 * exists to show, and that the paths it uses still match the office-fleet example.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support.js";

const workflow = readFileSync(join(ROOT, "examples/github-actions/deploy.yml"), "utf8");
const lines = workflow.split("\n").filter((line) => !line.trimStart().startsWith("#"));

describe("examples/github-actions/deploy.yml", () => {
  it("takes the token from the secret only as a step's environment variable", () => {
    const uses = lines.filter((line) => line.includes("secrets."));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JS template
    expect(uses).toEqual(["          ROUTERJOBS_TOKEN: ${{ secrets.ROUTERJOBS_TOKEN }}"]);
    expect(lines.filter((line) => /\brun:/.test(line) && /TOKEN|secrets/.test(line))).toEqual([]);
  });

  it("never runs two deploys at once, and never cancels a running one", () => {
    expect(workflow).toMatch(/^concurrency:\n {2}group: \S+\n {2}cancel-in-progress: false$/m);
  });

  it("deploys through routerjobs deploy, which needs no journal carried between runners", () => {
    expect(lines.filter((line) => /\brun: .*routerjobs deploy/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /\brun: .*terraform (apply|plan)/.test(line))).toEqual([]);
    expect(workflow).not.toContain("actions/cache");
  });

  it("installs a Terraform that has terraform_data (>= 1.4), without the wrapper", () => {
    const version = /terraform_version: "~?(\d+)\.(\d+)"/.exec(workflow);
    expect(Number(version?.[1]) * 100 + Number(version?.[2])).toBeGreaterThanOrEqual(104);
    expect(workflow).toContain("terraform_wrapper: false");
  });

  it("works in folders that the office-fleet example synthesizes", () => {
    const folders = [...workflow.matchAll(/working-directory: (examples\/\S+)/g)].map(
      (match) => match[1] ?? "",
    );
    expect(folders).toContain("examples/office-fleet/cdktf.out/stacks/office-fleet");
    for (const folder of folders) {
      const source = folder.split("/cdktf.out/")[0] ?? folder;
      expect(existsSync(join(ROOT, source, "main.ts")), folder).toBe(true);
    }
    const stack = /new TerraformStack\(app, "([^"]+)"\)/.exec(
      readFileSync(join(ROOT, "examples/office-fleet/main.ts"), "utf8"),
    );
    expect(
      folders.filter((folder) => folder.includes("/stacks/")).map((f) => f.split("/stacks/")[1]),
    ).toEqual([stack?.[1]]);
  });
});
