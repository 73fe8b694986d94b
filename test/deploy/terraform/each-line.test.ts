import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { eachLine } from "../../../src/deploy/terraform/terraform.js";

describe("eachLine", () => {
  it("keeps each stream's lines whole when another stream's chunk arrives in the middle of one", () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const seen: string[] = [];
    const rests = [eachLine(stdout, (line) => seen.push(line)), eachLine(stderr, (line) => seen.push(line))];
    stdout.write("edge (local-exec): routerjobs: inter");
    stderr.write("Error: execution halted\n");
    stdout.write("rupted; the next apply resumes\nunfinished");
    expect(seen).toEqual([
      "Error: execution halted",
      "edge (local-exec): routerjobs: interrupted; the next apply resumes",
    ]);
    expect(rests.map((rest) => rest())).toEqual(["unfinished", ""]);
  });

  it("keeps a character whose bytes arrive in two chunks", () => {
    const stream = new PassThrough();
    const seen: string[] = [];
    eachLine(stream, (line) => seen.push(line));
    const bytes = Buffer.from("wave ➜ canary\n");
    stream.write(bytes.subarray(0, 6));
    stream.write(bytes.subarray(6));
    expect(seen).toEqual(["wave ➜ canary"]);
  });
});
