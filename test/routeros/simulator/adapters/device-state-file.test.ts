/** The state file of a `router simulate` device: grouped, atomic writes that a crash cannot leave half done. */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  DeviceStateFile,
  writeDurably,
} from "../../../../src/routeros/simulator/adapters/device-state-file.js";
import { scratchDir } from "../../../helpers/scratch.js";

let dir: string;
beforeAll(() => {
  dir = scratchDir("routerjobs-state-file-");
});

describe("DeviceStateFile", () => {
  it("groups 1,000 changes into one write, and writes nothing when nothing changed", async () => {
    const file = join(dir, "grouped.json");
    let counter = 0;
    const state = new DeviceStateFile(file, () => ({ counter }), { flushDelayMs: 60_000 });
    await state.flush();
    expect(state.writes).toBe(0);
    expect(existsSync(file)).toBe(false);
    for (let i = 0; i < 1000; i++) {
      counter++;
      state.changed();
    }
    await state.flush();
    expect(state.writes).toBe(1);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ counter: 1000 });
    await state.flush();
    expect(state.writes).toBe(1);
  });

  it("writes a change by itself after the delay, with no caller asking", async () => {
    const file = join(dir, "timed.json");
    const written = new Promise<void>((resolve, reject) => {
      const state = new DeviceStateFile(file, () => ({ name: "timed" }), {
        flushDelayMs: 1,
        onError: reject,
      });
      state.changed();
      const check = () => (state.writes > 0 ? resolve() : setImmediate(check));
      check();
    });
    await written;
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ name: "timed" });
  });

  it("keeps the change pending when a write fails, and writes it once the folder is there", async () => {
    const folder = join(dir, "later");
    const file = join(folder, "state.json");
    const state = new DeviceStateFile(file, () => ({ kept: true }), { flushDelayMs: 60_000 });
    state.changed();
    await expect(state.flush()).rejects.toThrow(/ENOENT/);
    mkdirSync(folder);
    await state.flush();
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ kept: true });
    // no temporary file is left beside it, from the failed write or the good one
    expect(readdirSync(folder)).toEqual(["state.json"]);
  });

  it("replaces the file whole: the old content or the new, never a mix", async () => {
    const file = join(dir, "whole.json");
    await writeDurably(file, "x".repeat(100_000));
    await writeDurably(file, "short");
    expect(readFileSync(file, "utf8")).toBe("short");
  });
});
