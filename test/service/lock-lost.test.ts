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
import { DataDirectoryLostError } from "../../src/service/database/data-directory-lock.js";
import { stopDatabaseThread } from "../../src/service/database/pglite-on-thread.js";
import { applySeed } from "../../src/service/seed.js";
import { startService } from "../../src/service/server.js";
import { waitFor } from "../helpers/wait-for.js";
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
      // The time is set again until the service hears it: a refresh reads the time, then writes its own, and
      // a change that lands between the two is overwritten (proper-lockfile's refresh; a takeover does not
      // happen between them in life, where it needs the holder silent for 10 s).
      let heard: Error | undefined;
      void service.app.databaseLost.then((error) => {
        heard = error;
      });
      const past = new Date(Date.now() - 60_000);
      await waitFor(
        async () => {
          if (heard) return true;
          await utimes(`${data}.lock`, past, past);
          return false;
        },
        { what: "the service to hear that its data directory's lock was taken", intervalMs: 250 },
      );
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

  // The embedded store runs on a thread of its own (src/service/database/pglite-on-thread.ts); when that thread ends, the
  // service has no database, and must say so and stop, as when the lock is lost.
  it("stops serving at once when its database's thread ends", async () => {
    const own = await mkdtemp(join(tmpdir(), "rj-thread-lost-"));
    const service = await startService({
      config: resolveConfig({ database: join(own, "pglite"), dataDir: own }),
      backend: newBackend(),
      host: "127.0.0.1",
      port: 0,
      logger: false,
    });
    try {
      await applySeed(service.app.db, SEED as never);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      // WHEN the thread ends (as a crash of PostgreSQL's wasm would end it)
      await stopDatabaseThread();
      // THEN the service hears it, refuses every statement, and has closed its port
      const lost = await service.app.databaseLost;
      expect(lost.message).toMatch(/the database thread exited/);
      await expect(service.app.db.query("SELECT 1")).rejects.toThrow(/the database thread exited/);
      await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
    } finally {
      await service.close().catch(() => {});
      await rm(own, { recursive: true, force: true });
    }
  });
});
