import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/**
 * A PostgreSQL for tests: ROUTERJOBS_TEST_DATABASE_URL when set (CI), else a temporary PostgreSQL started
 * here when initdb/pg_ctl exist. Without either, tests skip with the printed reason, except in CI, where a
 * missing PostgreSQL is a failure.
 */
export interface TestPostgres {
  /** URL of a fresh database, created for the caller. */
  readonly url: string;
  stop(): Promise<void>;
}

export type PostgresAvailability =
  | { readonly available: true }
  | { readonly available: false; reason: string };

function hasBinary(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`]).status === 0;
}

export function postgresAvailability(): PostgresAvailability {
  if (process.env.ROUTERJOBS_TEST_DATABASE_URL) return { available: true };
  if (hasBinary("initdb") && hasBinary("pg_ctl")) return { available: true };
  const reason = "no PostgreSQL: set ROUTERJOBS_TEST_DATABASE_URL or install initdb/pg_ctl (PostgreSQL 15)";
  if (process.env.CI === "true") throw new Error(`${reason} (required in CI)`);
  process.stdout.write(`skipping PostgreSQL tests: ${reason}\n`);
  return { available: false, reason };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

async function createDatabase(adminUrl: string): Promise<string> {
  const name = `routerjobs_test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Starts (or reuses) a PostgreSQL and creates a fresh database in it. */
export async function startPostgres(): Promise<TestPostgres> {
  const given = process.env.ROUTERJOBS_TEST_DATABASE_URL;
  if (given) return { url: await createDatabase(given), stop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), "routerjobs-pg-"));
  const asRoot = process.getuid?.() === 0;
  const run = (args: string[]) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", ...args], { stdio: "pipe" })
      : execFileSync(args[0] as string, args.slice(1), { stdio: "pipe" });
  if (asRoot) {
    // PostgreSQL refuses to run as root: the cluster belongs to the postgres user.
    const user = execFileSync("id", ["-u", "postgres"]).toString().trim();
    const group = execFileSync("id", ["-g", "postgres"]).toString().trim();
    chownSync(dir, Number(user), Number(group));
  }
  const data = join(dir, "data");
  const port = await freePort();
  run(["initdb", "-D", data, "-A", "trust", "-U", "postgres"]);
  run([
    "pg_ctl",
    "-D",
    data,
    "-o",
    `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1`,
    "-l",
    join(dir, "log"),
    "-w",
    "start",
  ]);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url: await createDatabase(adminUrl),
    stop: async () => {
      try {
        run(["pg_ctl", "-D", data, "-m", "immediate", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
