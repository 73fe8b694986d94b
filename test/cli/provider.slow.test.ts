/** `routerjobs provider install` as a user runs it: into the implied mirror of its HOME, or a folder of its own. */
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/client/version.js";
import { terraformPlatform } from "../../src/deploy/provider/install.js";
import { runCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { scratchDir } from "../helpers/scratch.js";

describe("routerjobs provider install", () => {
  it("installs into Terraform's implied local mirror under HOME and says there is nothing to configure", async () => {
    const home = scratchDir("rj-home-");
    const result = await runCli(["provider", "install"], { env: { HOME: home } });
    expect(result.code, result.stderr).toBe(0);
    const executable = join(
      home,
      ".terraform.d/plugins/routerjobs.local/routerjobs/routerjobs",
      VERSION,
      terraformPlatform(),
      `terraform-provider-routerjobs_v${VERSION}`,
    );
    expect(result.stdout).toContain(`installed ${executable}`);
    expect(statSync(executable).mode & 0o111).toBe(0o111);
    expect(result.stdout).toContain("Terraform searches this folder without configuration");
    expect(result.stdout).not.toContain("provider_installation");
  });

  it("names --dir when the folder cannot be written, in one line with exit 2", async () => {
    const file = join(scratchDir("rj-file-"), "a-file");
    writeFileSync(file, "");
    expectOneErrorLine(await runCli(["provider", "install", "--dir", file]), 2, /pass --dir DIR/);
  });

  it("explains itself in --help", async () => {
    const help = await runCli(["provider", "install", "--help"]);
    expect(help.stdout).toContain("--dir <dir>");
    expect(help.stdout).toContain("terraform init");
  });
});
