/**
 * `routerjobs deploy` against a service that is not there: it stops after reading the job lists, before
 * Terraform applies anything, with the reason and exit 4 (docs/errors.md), instead of every provisioner waiting
 * out its whole timeout.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { synthesizeOffice } from "../e2e/deploy-harness.js";
import { runCli } from "../helpers/cli.js";
import { terraformOrSkip } from "../helpers/terraform.js";
import { TOKEN_A } from "../service/harness.js";

const terraform = terraformOrSkip("deploy against a service that is not there");

/** A loopback port nobody listens on: bound once, then closed, so a connection to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(terraform === undefined)("routerjobs deploy with the service down", () => {
  let work: string;
  let url: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "rj-deploy-down-"));
    url = `https://127.0.0.1:${await closedPort()}`;
    synthesizeOffice(work, { dns: "/ip dns set servers=10.0.0.53" });
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("stops before terraform apply with the reason and exit 4, and Terraform records nothing", async () => {
    const result = await runCli(["deploy", "--dir", work], {
      env: {
        ROUTERJOBS_URL: url,
        ROUTERJOBS_TOKEN: TOKEN_A,
        ROUTERJOBS_STATE_DIR: join(work, "state"),
      },
    });
    expect(result.stderr).toMatch(
      new RegExp(
        `^routerjobs: deploy stopped before terraform apply, nothing was run: cannot reach the service at ${url}: .*\\(ECONNREFUSED\\): is the service running there\\? \\(check ROUTERJOBS_URL or --url\\)\\n$`,
      ),
    );
    expect(result.code).toBe(4);
    // Terraform never started an apply: no plan, no provisioner, no state.
    expect(result.stdout).not.toMatch(/Terraform will perform|Creating\.\.\.|provisioner/);
    expect(existsSync(join(work, "terraform.tfstate"))).toBe(false);
  });
});
