import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { exitCodeFor } from "../../../src/cli/exit-codes.js";
import { Journal } from "../../../src/deploy/apply/journal.js";
import { EnvironmentError } from "../../../src/errors.js";
import { scratchDir } from "../../helpers/scratch.js";

const identity = { jobKey: "k1", resource: "routerjobs_job.a", routerId: "r" };

describe("the apply journal, read back", () => {
  let stateDir: string;
  beforeAll(() => {
    stateDir = scratchDir("rj-journal-");
  });

  it("keeps what it wrote, and fields it does not know", async () => {
    const journal = new Journal(join(stateDir, "kept"));
    await journal.update(identity, (entry) => {
      entry.attempts.push({
        attempt: 1,
        marker: "m1",
        idempotencyKey: "key",
        instanceId: "i",
        submittedAt: "2026-12-01T00:00:00.000Z",
        status: "pending",
      });
    });
    const file = journal.fileOf("k1");
    const written = JSON.parse(JSON.stringify(await journal.read("k1")));
    writeFileSync(file, JSON.stringify({ ...written, newer: { field: 1 } }));
    expect(await journal.read("k1")).toMatchObject({ attempts: [{ marker: "m1" }], newer: { field: 1 } });
  });

  it("refuses a file of another shape with an error naming the file and what to do, exit 5, not a TypeError (70)", async () => {
    const journal = new Journal(join(stateDir, "wrong"));
    mkdirSync(journal.dir, { recursive: true });
    for (const [content, where] of [
      [{ jobKey: "k1", attempts: {} }, "attempts"],
      [{ jobKey: "k1", attempts: [{ marker: 5 }] }, "attempts.0"],
      [[1, 2], "the file"],
      ["text", "the file"],
    ] as const) {
      writeFileSync(journal.fileOf("k1"), JSON.stringify(content));
      for (const use of [() => journal.read("k1"), () => journal.update(identity, () => undefined)]) {
        const error = await use().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error, JSON.stringify(content)).toBeInstanceOf(EnvironmentError);
        const { message } = error as Error;
        expect(message).toContain(
          `the apply journal ${journal.fileOf("k1")} is not a journal entry (${where}`,
        );
        expect(message).toContain("move it aside and run again");
        expect(exitCodeFor(error)).toBe(5);
      }
    }
  });

  it("says what to do with a file that is not JSON", async () => {
    const journal = new Journal(join(stateDir, "garbled"));
    mkdirSync(journal.dir, { recursive: true });
    writeFileSync(journal.fileOf("k1"), "{ half");
    await expect(journal.read("k1")).rejects.toThrow(
      new RegExp(`the apply journal ${journal.fileOf("k1")} is unreadable: .*; move it aside and run again`),
    );
  });
});
