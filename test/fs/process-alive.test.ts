import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { isProcessAlive } from "../../src/fs/process-alive.js";
import { eventually } from "../service/harness.js";

describe("isProcessAlive", () => {
  it("is true for a running process and false for one that does not exist", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
  });

  it.skipIf(!existsSync("/proc/self/stat"))(
    "is false for a zombie: a process killed and not yet reaped by its parent (issue 21, item 9)",
    async () => {
      // `sleep 0` exits at once; its parent replaces itself with `sleep 30`, which never reaps it.
      const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], {
        stdio: ["ignore", "pipe", "ignore"],
      });
      try {
        const [line] = (await once(createInterface({ input: parent.stdout }), "line")) as [string];
        const zombie = Number(line);
        await eventually(async () =>
          /\) Z /.test(readFileSync(`/proc/${zombie}/stat`, "utf8")) ? true : undefined,
        );
        expect(() => process.kill(zombie, 0)).not.toThrow();
        expect(isProcessAlive(zombie)).toBe(false);
      } finally {
        parent.kill("SIGKILL");
      }
    },
  );
});
