import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import { type Database, openDatabase } from "../../store/database.js";
import { migrate } from "../../store/migrations.js";
import { SERVICE_MIGRATIONS } from "../store/schema.js";

declare module "fastify" {
  interface FastifyInstance {
    db: Database;
  }
}

/** Opens the configured database (or takes one the caller owns) and brings its schema up to date. */
export default fp(
  async function database(app: FastifyInstance, options: { db?: Database }) {
    const db = options.db ?? (await openDatabase({ location: app.config.database }));
    await migrate(db, "service", SERVICE_MIGRATIONS);
    app.decorate("db", db);
    if (!options.db) app.addHook("onClose", async () => db.close());
  },
  { name: "database", dependencies: ["config"] },
);
