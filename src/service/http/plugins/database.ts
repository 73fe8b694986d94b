import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { type Database, openDatabase } from "../../database/database.js";
import { migrate } from "../../database/migrations.js";
import { reportStorageFull, StorageFullReport } from "../../database/storage-full.js";
import { SERVICE_MIGRATIONS } from "../../schema.js";

declare module "fastify" {
  interface FastifyInstance {
    db: Database;
    /** Resolves if this process loses its PGlite database (the data directory's lock, or the database's thread); the service has then closed itself. */
    databaseLost: Promise<Error>;
    /** Whether writes were refused for lack of space lately: `/healthz` reports it, requests answer 503. */
    storageFull: StorageFullReport;
  }
}

/** Opens the configured database (or takes one the caller owns) and brings its schema up to date. */
export default fp(
  async function database(app: FastifyInstance, options: { db?: Database }) {
    let reportLost: (error: Error) => void = () => {};
    const lost = new Promise<Error>((resolve) => {
      reportLost = resolve;
    });
    // Another process may write the directory now, or the database's thread has ended: every query already
    // fails; the service stops taking requests at once, so nothing is acknowledged that could be lost.
    const onLost = (error: Error) => {
      app.log.fatal({ err: error }, "database lost: the service stops");
      reportLost(error);
      void app.close();
    };
    const opened = options.db ?? (await openDatabase({ location: app.config.database, onLost }));
    const storageFull = new StorageFullReport();
    const db = reportStorageFull(opened, storageFull);
    app.decorate("databaseLost", lost);
    app.decorate("storageFull", storageFull);
    await migrate(db, "service", SERVICE_MIGRATIONS);
    app.decorate("db", db);
    if (!options.db) app.addHook("onClose", async () => db.close());
  },
  { name: "database", dependencies: ["config"] },
);
