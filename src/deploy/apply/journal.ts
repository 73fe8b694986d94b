import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import type { JobStatus } from "../../contract/job.js";
import { EnvironmentError } from "../../errors.js";
import { withFileLock, writeFileAtomic } from "../../platform/fs/file-lock.js";

/**
 * The local journal of `routerjobs apply`: the attempts this machine made or followed for each job definition
 * (`job_key`), and which outcomes it reported to Terraform. A cache: the service's job list is the record
 * (attempts.ts); the journal only tells, without Terraform's state at hand, that a failure this machine
 * reported may run again. One small JSON file per job key under the state directory, under a lock.
 */
export interface AttemptRecord {
  /** 1, 2, ...: a deliberate retry after a failure is a new attempt with a new marker. */
  readonly attempt: number;
  /** The attempt's marker (attempt-marker.ts), as it ends the job's description. */
  readonly marker: string;
  /** The key the service answered or listed for the job. */
  readonly idempotencyKey: string;
  /** Terraform's resource instance that made the attempt: a new instance re-runs a completed job. */
  readonly instanceId: string;
  readonly submittedAt: string;
  /** Last status seen; "submitting" until the service acknowledged. */
  status: JobStatus | "submitting";
  jobId?: string;
  error?: string;
  /** This machine saw the job end and told Terraform (apply's exit status). */
  reported?: boolean;
  finishedAt?: string;
}

export interface JournalEntry {
  readonly jobKey: string;
  readonly resource: string;
  readonly routerId: string;
  attempts: AttemptRecord[];
}

const LOCK_WAIT_MS = 30_000;

/**
 * What a reader needs of an entry to decide by it: anything else in the file is kept as it is. A file of
 * another shape (edited by hand, another program's) made apply fail with a TypeError, exit 70.
 */
const journalEntrySchema = z.looseObject({
  attempts: z.array(
    z.looseObject({
      attempt: z.number(),
      marker: z.string(),
      idempotencyKey: z.string(),
      status: z.string(),
      reported: z.boolean().optional(),
    }),
  ),
});

/** The journal is a cache of what the service's job list holds: without a file, apply decides from the list. */
const WHAT_TO_DO =
  "move it aside and run again: apply then decides from the service's job list, as on a machine without a journal (a failed change it reported is then reported again, not run again)";

export class Journal {
  readonly dir: string;
  #ready: Promise<unknown> | undefined;

  constructor(stateDir: string) {
    this.dir = join(stateDir, "journal");
  }

  fileOf(jobKey: string): string {
    return join(this.dir, `${jobKey}.json`);
  }

  async read(jobKey: string): Promise<JournalEntry | undefined> {
    const file = this.fileOf(jobKey);
    let entry: unknown;
    try {
      entry = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new EnvironmentError(
        `the apply journal ${file} is unreadable: ${(error as Error).message}; ${WHAT_TO_DO}`,
      );
    }
    const parsed = journalEntrySchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join(".") : "the file";
      throw new EnvironmentError(
        `the apply journal ${file} is not a journal entry (${where}: ${issue?.message ?? "wrong shape"}); ${WHAT_TO_DO}`,
      );
    }
    // The rows are kept as written (fields of a newer version included), and written back so.
    return entry as JournalEntry;
  }

  /** Read-modify-write of one entry under the lock; `change` may mutate and returns what the caller needs. */
  async update<T>(
    identity: Pick<JournalEntry, "jobKey" | "resource" | "routerId">,
    change: (entry: JournalEntry) => T,
  ): Promise<T> {
    this.#ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 });
    await this.#ready;
    const file = this.fileOf(identity.jobKey);
    return withFileLock(
      file,
      Date.now() + LOCK_WAIT_MS,
      () => new EnvironmentError(`the apply journal ${file} stayed locked for ${LOCK_WAIT_MS / 1000} s`),
      async () => {
        const entry = (await this.read(identity.jobKey)) ?? { ...identity, attempts: [] };
        const result = change(entry);
        await writeFileAtomic(file, `${JSON.stringify(entry, null, 2)}\n`);
        return result;
      },
    );
  }
}
