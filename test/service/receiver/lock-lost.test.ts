/**
 * A receiver whose PGlite data-directory lock is taken over (issue 21, item 4, as for the service): its
 * database refuses every query and it stops serving at once.
 */
import { utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataDirectoryLostError } from "../../../src/service/database/data-directory-lock.js";
import { RECEIVER_FILES } from "../../../src/service/receiver/files.js";
import { startTestReceiver, tempDir } from "./helpers.js";

describe("a receiver that loses its data directory's lock", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  afterAll(async () => dir?.remove());

  it("stops serving at once", async () => {
    dir = await tempDir();
    const receiver = await startTestReceiver(dir.path, { logger: false });
    try {
      const past = new Date(Date.now() - 60_000);
      await utimes(`${join(dir.path, RECEIVER_FILES.database)}.lock`, past, past);
      const lost = await receiver.databaseLost;
      expect(lost).toBeInstanceOf(DataDirectoryLostError);
      await expect(
        receiver.sender.post({ job_id: "0f0f0f0f-1111-4222-8333-444455556666", status: "running" }),
      ).rejects.toThrow();
    } finally {
      await receiver.close().catch(() => {});
    }
  });
});
