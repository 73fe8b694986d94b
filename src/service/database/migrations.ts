import type { Database } from "./database.js";

/**
 * Versioned schema migrations, per component (`service`, `receiver`), applied in order, each in its own
 * transaction. An advisory lock makes concurrent starts of several instances on one PostgreSQL safe.
 */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

export async function migrate(
  db: Database,
  component: string,
  migrations: readonly Migration[],
): Promise<number> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  ordered.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `${component} migrations must be numbered 1, 2, 3... (found ${migration.version} at position ${index + 1})`,
      );
    }
  });
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('routerjobs-migrations'))");
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         component text NOT NULL,
         version integer NOT NULL,
         description text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (component, version))`,
    );
    const { rows } = await tx.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM schema_migrations WHERE component = $1",
      [component],
    );
    const current = rows[0]?.version ?? 0;
    if (current > ordered.length) {
      throw new Error(
        `the ${component} database schema is version ${current}, newer than this build knows (${ordered.length}); upgrade routerjobs`,
      );
    }
    for (const migration of ordered.slice(current)) {
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations (component, version, description) VALUES ($1, $2, $3)", [
        component,
        migration.version,
        migration.description,
      ]);
    }
    return ordered.length;
  });
}

/** Migrations hold several statements; parameterised `query` takes one at a time. Keep `;` out of literals. */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
