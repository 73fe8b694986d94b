/** The strace reading of the durability test (test/service/database/strace.ts), on traces written by hand. */
import { describe, expect, it } from "vitest";
import { durabilityEvents, joinInterrupted } from "./strace.js";

describe("reading an strace -f trace", () => {
  it("joins a call another thread interrupted: an fsync where it returned, a write where it began", () => {
    const lines = [
      "101 fsync(12</data/pg_wal/0001> <unfinished ...>",
      '100 write(15<TCP:[127.0.0.1:1->127.0.0.1:2]>, "HTTP/1.1 202 Accepted\\r\\n"..., 300 <unfinished ...>',
      "101 <... fsync resumed>) = 0",
      "100 <... write resumed>) = 300",
    ];
    expect(joinInterrupted(lines)).toEqual([
      '100 write(15<TCP:[127.0.0.1:1->127.0.0.1:2]>, "HTTP/1.1 202 Accepted\\r\\n"..., 300) = 300',
      "101 fsync(12</data/pg_wal/0001>) = 0",
    ]);
    // The answer began before the fsync returned: not durable before its 2xx.
    expect(durabilityEvents(lines, "/data")).toEqual(["2xx", "fsync"]);
  });

  it("keeps whole lines as they are, and counts only fsyncs of the data directory that succeeded", () => {
    const lines = [
      "100 fsync(12</data/pg_wal/0001>) = 0",
      "100 fsync(13</elsewhere/file>) = 0",
      "100 fsync(14</data/base/1>) = -1 EIO (Input/output error)",
      '100 write(15<TCP:[127.0.0.1:1->127.0.0.1:2]>, "HTTP/1.1 200 OK\\r\\n"..., 90) = 90',
    ];
    expect(joinInterrupted(lines)).toEqual(lines);
    expect(durabilityEvents(lines, "/data")).toEqual(["fsync", "2xx"]);
  });
});
