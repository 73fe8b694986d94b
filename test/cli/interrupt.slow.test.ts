/**
 * Ctrl-C of a command that waits: it stops at once and exits 130 with one line saying what the next run does,
 * as a shell reports 128 + SIGINT (docs/errors.md).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startCli } from "../helpers/cli.js";
import { expectOneErrorLine } from "../helpers/cli-expect.js";
import { declareJob } from "../helpers/declared-job.js";
import { scratchDir } from "../helpers/scratch.js";
import { waitFor } from "../helpers/wait-for.js";
import { ROUTER_A, startTestService, type TestService, TOKEN_A, writeServiceCa } from "../service/harness.js";

describe("routerjobs apply interrupted while it waits for its job", () => {
  let svc: TestService;
  let scratch: string;
  let caFile: string;
  beforeAll(async () => {
    scratch = scratchDir("rj-cli-interrupt-");
    // No tick for an hour: the job stays queued, and apply polls for it until it is stopped.
    svc = await startTestService({ tickMs: 3_600_000 });
    caFile = writeServiceCa(svc, scratch);
  });
  afterAll(async () => svc?.close());

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`exits 130 on ${signal} with one line saying the next apply resumes the same job`, async () => {
      // GIVEN an apply polling for a queued job
      const job = { ...declareJob(ROUTER_A, `cli/interrupt/${signal}`, false), timeout_ms: 600_000 };
      const listedBefore = (await svc.jobs(ROUTER_A)).length;
      const apply = startCli(["apply"], {
        env: {
          ROUTERJOBS_URL: svc.url,
          ROUTERJOBS_TOKEN: TOKEN_A,
          ROUTERJOBS_CA_FILE: caFile,
          ROUTERJOBS_RATE_LIMIT: "1000/1s",
          ROUTERJOBS_STATE_DIR: join(scratch, signal),
          ROUTERJOBS_JOB: JSON.stringify(job),
        },
      });
      try {
        await waitFor(async () => ((await svc.jobs(ROUTER_A)).length > listedBefore ? true : undefined), {
          what: "the job to be listed",
        });
        // WHEN the operator stops it
        apply.child.kill(signal);
        // THEN it ends as interrupted, not as a usage error or an internal one
        const code = await apply.exited;
        expectOneErrorLine(
          { code, ...apply.output() },
          130,
          /interrupted; the next apply resumes waiting for the same job/,
          [TOKEN_A],
        );
      } finally {
        await apply.stop();
      }
    });
  }
});
