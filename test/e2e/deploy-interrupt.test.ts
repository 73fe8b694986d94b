/**
 * Ctrl-C of `routerjobs deploy` while its provisioners wait for jobs on offline routers: SIGINT to the whole
 * process group, as a terminal sends it. Deploy, Terraform and every apply stop; what the person reads is one
 * line per interrupted resource and deploy's own line, not Terraform's `Error: execution halted` block for each
 * provisioner it stopped (docs/errors.md).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import { scratchDir } from "../helpers/scratch.js";
import { terraformOrSkip } from "../helpers/terraform.js";
import { waitFor } from "../helpers/wait-for.js";
import { ROUTER_A, ROUTER_A2, startTestService, type TestService, TOKEN_A } from "../service/harness.js";
import { startDeployTree, synthesizeOffice } from "./deploy-harness.js";

const terraform = terraformOrSkip("Ctrl-C of deploy with terraform");

describe.skipIf(terraform === undefined)("Ctrl-C of routerjobs deploy", () => {
  let service: TestService;
  let work: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    service = await startTestService({ rateLimit: { count: 10_000, windowMs: 1000 } });
    work = scratchDir("rj-deploy-int-");
    const caFile = join(work, "ca.pem");
    writeFileSync(caFile, service.service.ca as string);
    env = {
      ...process.env,
      ROUTERJOBS_URL: service.url,
      ROUTERJOBS_TOKEN: TOKEN_A,
      ROUTERJOBS_CA_FILE: caFile,
      ROUTERJOBS_STATE_DIR: join(work, "state"),
      ROUTERJOBS_RATE_LIMIT: "10000/1s",
    };
    synthesizeOffice(work, { dns: "/ip dns set servers=10.0.0.53" });
    // The service attaches a router on its first use; then an offline router leaves its jobs pending.
    for (const router of [ROUTER_A, ROUTER_A2])
      await service.call("POST", `/api/synchronous/${router}`, {
        body: { command: "/system/identity/print" },
      });
  });
  afterAll(async () => service?.close());

  /** Deploy started in its own process group, once both routers' applies wait for their queued jobs. */
  async function deployWaiting(): Promise<{
    deploy: ReturnType<typeof startDeployTree>;
    output: () => string;
  }> {
    const deploy = startDeployTree(work, env);
    let output = "";
    deploy.child.stdout?.on("data", (chunk) => (output += chunk));
    deploy.child.stderr?.on("data", (chunk) => (output += chunk));
    await waitFor(
      async () =>
        (await service.jobs(ROUTER_A)).length > 0 &&
        (await service.jobs(ROUTER_A2)).length > 0 &&
        (output.match(/\(local-exec\): routerjobs: office\//g)?.length ?? 0) >= 2,
      { what: "both applies to wait for their jobs", detail: () => output },
    );
    return { deploy, output: () => output };
  }

  it("prints one line per interrupted resource and its own, without Terraform's error blocks", async () => {
    const backend = service.backend as SimulatedBackend;
    for (const router of [ROUTER_A, ROUTER_A2]) backend.setOnline(router, false);
    try {
      const { deploy, output: seen } = await deployWaiting();
      // Ctrl-C in a terminal: the whole foreground process group.
      process.kill(-(deploy.child.pid as number), "SIGINT");
      const { code } = await deploy.done;
      const output = seen();
      console.log(
        `deploy on Ctrl-C, from the interrupt on:\n${output.slice(output.indexOf("Interrupt received"))}`,
      );
      expect(code, `deploy's exit code; what it printed:\n${output}`).toBe(130);
      // Terraform's diagnostic for each provisioner it stopped (which one depends on when it stopped it).
      expect(output).not.toMatch(/execution halted|provisioner error|signal: killed/);
      // Terraform heard the one interrupt and stopped its provisioners gracefully, not a second one from deploy.
      expect(output).not.toContain("Two interrupts received");
      const lines = output.trimEnd().split("\n");
      // One closing line per resource: its apply's own, or deploy's in place of Terraform's error block when
      // Terraform stopped the apply before it could say it (progress lines before it may mention the interrupt).
      const closing =
        /\(local-exec\): routerjobs: interrupted;|: interrupted; the next deploy finishes its change$/;
      for (const resource of ["terraform_data.edge-a_dns_job", "terraform_data.edge-a2_identity_job"])
        expect(
          lines.filter((line) => line.includes(resource) && closing.test(line)),
          `the closing lines of ${resource}; what deploy printed:\n${output}`,
        ).toHaveLength(1);
      expect(lines.at(-1)).toBe("routerjobs: interrupted; run deploy again to finish");
    } finally {
      backend.setOnline(ROUTER_A, true);
      backend.setOnline(ROUTER_A2, true);
    }
  });

  it("passes a signal sent to deploy alone on to Terraform, which stops its provisioners", async () => {
    const backend = service.backend as SimulatedBackend;
    for (const router of [ROUTER_A, ROUTER_A2]) backend.setOnline(router, false);
    try {
      const { deploy, output: seen } = await deployWaiting();
      process.kill(deploy.child.pid as number, "SIGINT");
      const { code } = await deploy.done;
      const output = seen();
      expect(code, `deploy's exit code; what it printed:\n${output}`).toBe(130);
      expect(output).toContain("Interrupt received.");
      expect(output).not.toContain("Two interrupts received");
      expect(output.trimEnd().split("\n").at(-1)).toBe("routerjobs: interrupted; run deploy again to finish");
    } finally {
      for (const router of [ROUTER_A, ROUTER_A2]) backend.setOnline(router, true);
    }
  });
});
