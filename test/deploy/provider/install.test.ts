import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  installProvider,
  launcherScript,
  shellQuote,
  terraformPlatform,
} from "../../../src/deploy/provider/install.js";
import { PROVIDER_SOURCE } from "../../../src/deploy/terraform/provider-address.js";
import { scratchDir } from "../../helpers/scratch.js";

describe("routerjobs provider install", () => {
  it("writes an executable launcher where Terraform's implied local mirror is searched", async () => {
    // GIVEN a home folder of the test's own
    const home = scratchDir("rj-home-");
    const installed = await installProvider({
      version: "1.2.3",
      providerMain: "/opt/rj/main.js",
      home,
      node: "/usr/bin/node",
    });
    expect(installed.implied).toBe(true);
    expect(installed.executable).toBe(
      join(
        home,
        ".terraform.d",
        "plugins",
        PROVIDER_SOURCE,
        "1.2.3",
        terraformPlatform(),
        "terraform-provider-routerjobs_v1.2.3",
      ),
    );
    expect(statSync(installed.executable).mode & 0o111).toBe(0o111);
    expect(readFileSync(installed.executable, "utf8")).toContain(
      "exec '/usr/bin/node' '/opt/rj/main.js' \"$@\"",
    );
    expect(installed.requiredProviders).toContain(`source  = "${PROVIDER_SOURCE}"`);
  });

  it("prints the provider_installation block for a mirror of the user's choice", async () => {
    const dir = scratchDir("rj-mirror-");
    const installed = await installProvider({ dir, version: "0.1.0", providerMain: "/x/main.js" });
    expect(installed.implied).toBe(false);
    expect(installed.cliConfig).toContain(`path    = ${JSON.stringify(dir)}`);
    expect(installed.cliConfig).toContain(`exclude = ["${PROVIDER_SOURCE}"]`);
  });

  it("refuses a version Terraform cannot name, and a folder it cannot write, naming the fix", async () => {
    await expect(installProvider({ version: "0.1.0-rc.1", providerMain: "/x" })).rejects.toThrow(/X\.Y\.Z/);
    const file = join(scratchDir("rj-file-"), "not-a-dir");
    writeFileSync(file, "");
    await expect(installProvider({ dir: file, version: "0.1.0", providerMain: "/x" })).rejects.toThrow(
      /--dir DIR/,
    );
  });

  it("names the platform as Terraform does", () => {
    expect(terraformPlatform("linux", "x64")).toBe("linux_amd64");
    expect(terraformPlatform("darwin", "arm64")).toBe("darwin_arm64");
  });

  it("quotes any path so that the shell reads it back unchanged", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\0")),
        (text) => {
          expect(execFileSync("/bin/sh", ["-c", `printf %s ${shellQuote(text)}`], { encoding: "utf8" })).toBe(
            text,
          );
        },
      ),
      { numRuns: 40 },
    );
    expect(launcherScript("/n o/node", "/it's/main.js")).toContain(`'/it'"'"'s/main.js'`);
  });
});
