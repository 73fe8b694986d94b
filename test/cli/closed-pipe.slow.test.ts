import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("output into a closed pipe (`routerjobs exec --help | head -0`)", () => {
  it("exits quietly with the command's own code, no EPIPE stack trace", async () => {
    const child = spawn(process.execPath, ["bin/routerjobs.js", "exec", "--help"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The reader goes away before the CLI has loaded, so its first write meets a closed pipe.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, "close")) as [number | null];
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
