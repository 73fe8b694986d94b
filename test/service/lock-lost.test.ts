/**
 * Issue 21, item 4: a service whose PGlite data-directory lock went stale during a freeze kept serving after
 * another process took the directory, and acknowledged jobs vanished. Now the database fences itself (every
 * query fails) and the service closes at once. The lock is taken from it here as a second process would: by
 * writing the lock's time behind its back, which its next refresh sees.
 */
import { mkdtemp, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/service/config.js";
import { applySeed } from "../../src/service/seed.js";
import { startService } from "../../src/service/server.js";
import { DataDirectoryLostError } from "../../src/store/data-directory-lock.js";
import { newBackend } from "./backend.js";
import { ROUTER_A, SEED } from "./harness.js";

describe("a service that loses its data directory's lock", () => {
  let dir: string;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("stops writing and stops serving at once", async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-lock-lost-"));
    const data = join(dir, "pglite");
    const service = await startService({
      config: resolveConfig({ database: data, dataDir: dir }),
      backend: newBackend(),
      host: "127.0.0.1",
      port: 0,
      logger: false,
    });
    await applySeed(service.app.db, SEED as never);
    try {
      // WHEN another process takes the lock over (its time changes behind this one's back)
      const past = new Date(Date.now() - 60_000);
      await utimes(`${data}.lock`, past, past);
      // THEN the service learns it at its next refresh, and has closed itself
      const lost = await service.app.databaseLost;
      expect(lost).toBeInstanceOf(DataDirectoryLostError);
      expect(lost.message).toMatch(/lost.*stops writing/);
      // AND nothing more is written to the directory
      await expect(
        service.app.db.query("UPDATE routers SET name = 'after' WHERE id = $1", [ROUTER_A]),
      ).rejects.toThrow(DataDirectoryLostError);
      await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
    } finally {
      await service.close().catch(() => {});
    }
  });
});
