import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { isProcessAlive } from "../../../src/platform/fs/process-alive.js";
import { eventually } from "../../service/harness.js";

describe("isProcessAlive", () => {
  it("is true for a running process and false for one that does not exist", () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
  });

  it.skipIf(!existsSync("/proc/self/stat"))(
    "is false for a zombie: a process killed and not yet reaped by its parent (issue 21, item 9)",
    async () => {
      // The background subshell exits once its parent has replaced itself with `sleep 30`, which never reaps
      // it. (With `sleep 0 &`, a loaded machine let the child exit before the exec, and sh reaped it.) In a
      // subshell `$$` is still the parent's pid.
      const script = `(while [ "$(cat /proc/$$/comm)" != sleep ]; do sleep 0.05; done) & echo $!; exec sleep 30`;
      const parent = spawn("sh", ["-c", script], {
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
