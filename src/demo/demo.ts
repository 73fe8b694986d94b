import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { RouterJobsClient } from "../client/client.js";
import { formatDuration } from "../contract/duration.js";
import { DEFAULT_RATE_LIMIT } from "../contract/limits.js";
import { locateTerraform, runGroup, stopGroup } from "../deploy/terraform/terraform.js";
import { EnvironmentError } from "../errors.js";
import type { RunningReceiver } from "../service/receiver/server.js";
import type { RunningService } from "../service/server.js";
import { describeStatus, JobWatch } from "./job-watch.js";
import { PACKAGE_ROOT as ROOT, startLocalStack } from "./local-stack.js";
import { startRouterProcesses } from "./router-processes.js";

/**
 * `routerjobs demo`: the main job on one machine. Starts the service (simulated routers) and the receiver on
 * loopback with generated TLS, seeds a team, a token and five routers, synthesizes the example office fleet
 * with cdktf, deploys it with the real Terraform, shows each router's jobs live, sums up, then changes one
 * router and deploys again to show that only its job runs. Everything it starts, it stops.
 */
export interface DemoOptions {
  /** Leave the service and the receiver running and print how to point a deploy at them. */
  readonly keep: boolean;
  /** Working folder (data, stack, state). @default a new temporary folder */
  readonly dir?: string;
  /**
   * Run each router as its own `routerjobs router simulate` process speaking the RouterOS API, driven by the
   * service as a device, instead of inside the service. @default false
   */
  readonly routerProcesses?: boolean;
  readonly write: (line: string) => void;
  readonly signal: AbortSignal;
}

export interface DemoSummary {
  readonly jobs: Record<string, number>;
  readonly backups: number;
  readonly apiRequests: number;
  readonly redeployedRouters: readonly string[];
}

const FLEET_APP = join(ROOT, "examples", "office-fleet", "main.ts");
const SITES = ["berlin", "hamburg", "munich", "cologne", "leipzig"];
const TICK_MS = 1000;

/**
 * The demo synthesizes the example with tsx and cdktf, which a checkout has (dev dependencies) and an install
 * of the package does not (tsx is no dependency, cdktf an optional peer): there it says how to get a checkout,
 * before anything else (Terraform would not make it run).
 */
function checkDemoPrerequisites(): void {
  const missing = [
    existsSync(FLEET_APP) ? undefined : FLEET_APP,
    ...["tsx", "cdktf"].map((name) => (resolvesFrom(FLEET_APP, name) ? undefined : name)),
  ].filter((item) => item !== undefined);
  if (missing.length === 0) return;
  const { repository } = createRequire(import.meta.url)("../../package.json") as {
    repository: { url: string };
  };
  const clone = repository.url.replace(/^git\+/, "");
  throw new EnvironmentError(
    `routerjobs demo runs in a clone of the repository, with its example app and dev dependencies (missing here: ${missing.join(", ")}): git clone ${clone} routerjobs && cd routerjobs && npm ci && npm run demo`,
  );
}

function resolvesFrom(file: string, name: string): boolean {
  try {
    createRequire(file).resolve(name);
    return true;
  } catch {
    return false;
  }
}

export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const { write, signal } = options;
  checkDemoPrerequisites();
  const terraform = await locateTerraform();
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "routerjobs-demo-")));
  await mkdir(dir, { recursive: true });
  const cleanups: (() => Promise<unknown>)[] = [];
  // A folder the demo made is the demo's to remove; one the user named (--dir) stays for inspection.
  if (!options.dir) cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1).padStart(5)}s`;
  write(`demo folder ${dir}; ${terraform.binary} ${terraform.version}`);

  try {
    const routers = SITES.map((site, index) => ({
      id: randomUUID(),
      name: `office-${index + 1}`,
      site,
      lanPrefix: `192.168.${(index + 1) * 10}`,
    }));
    const devices = options.routerProcesses ? await startRouterProcesses(dir, routers) : undefined;
    if (devices) cleanups.unshift(() => devices.close());
    const stack = await startLocalStack({
      dir,
      routers: routers.map(({ id, name }) => {
        const device = devices?.devices.get(id);
        return { id, name, ...(device ? { device } : {}) };
      }),
      tickMs: TICK_MS,
    });
    cleanups.unshift(() => stack.close());
    const { service, token } = stack;
    const receiver = stack.receiver as RunningReceiver;
    const env = { ...stack.env, CDKTF_OUTDIR: join(dir, "cdktf.out") };
    const routerNames = routers.map((r) => r.name).join(", ");
    write(
      devices
        ? `service  ${service.url}  (RouterOS API devices, each its own process on loopback: ${routerNames})`
        : `service  ${service.url}  (simulated RouterOS routers: ${routerNames})`,
    );
    write(`receiver ${receiver.url}`);

    const watch = new JobWatch(service.app.db, (job) => {
      const took = job.endedAt ?? job.startedAt;
      const seconds = took ? ` after ${((took.getTime() - job.createdAt.getTime()) / 1000).toFixed(1)}s` : "";
      write(
        `${elapsed()}  ${job.routerName.padEnd(9)} #${String(job.seqId).padEnd(2)} ${job.description.padEnd(30)} ${describeStatus(job.status)}${seconds}`,
      );
    });
    watch.start();
    cleanups.unshift(async () => watch.stop());

    const stackDir = join(dir, "cdktf.out", "stacks", "office-fleet");
    const deploy = async (variant: "initial" | "changed") => {
      write(`${elapsed()}  synthesizing the office fleet (${variant}) with cdktf`);
      // In the demo's folder: cdktf puts the stack's default local state in the working directory, and the
      // demo's state belongs with the demo, not in the user's checkout.
      await run(
        process.execPath,
        ["--import", import.meta.resolve("tsx"), FLEET_APP],
        { cwd: dir, env: { ...env, FLEET_VARIANT: variant, ROUTERJOBS_FLEET: JSON.stringify(routers) } },
        signal,
      );
      // routerjobs deploy: terraform init when needed, the reconciliation of the state with the routers'
      // job lists, then terraform apply (docs/apply.md, "Exactly once").
      write(`${elapsed()}  routerjobs deploy: reconcile, then terraform apply (parallelism 10)`);
      await run(
        process.execPath,
        [join(ROOT, "bin", "routerjobs.js"), "deploy", "--dir", stackDir, "--", "-parallelism=10"],
        { cwd: dir, env },
        signal,
      );
      await watch.poll();
    };

    await deploy("initial");
    const firstJobs = await watch.jobs();
    const jobs = countBy(firstJobs.map((job) => job.status));
    const backups = firstJobs.filter((job) => job.backupName !== null).length;
    const spent = [...service.app.admittedRequests.values()].reduce((a, b) => a + b, 0);
    write("");
    write(
      `summary: ${firstJobs.length} jobs (${Object.entries(jobs)
        .map(([status, n]) => `${n} ${status}`)
        .join(", ")}), ${backups} backups taken before them`,
    );
    write(
      `API requests spent: ${spent} of the key's budget of ${DEFAULT_RATE_LIMIT.count} per ${formatDuration(DEFAULT_RATE_LIMIT.windowMs)} (${(spent / firstJobs.length).toFixed(2)} per job; the receiver confirmed them)`,
    );
    await showRouter(service, token, join(dir, "state"), routers[0] as { id: string; name: string }, write);

    write("");
    write(`${elapsed()}  changing ${routers[0]?.name}'s firewall and deploying again`);
    const before = new Set(firstJobs.map((job) => `${job.routerName}#${job.seqId}`));
    await deploy("changed");
    const rerun = (await watch.jobs()).filter((job) => !before.has(`${job.routerName}#${job.seqId}`));
    const redeployedRouters = [...new Set(rerun.map((job) => job.routerName))];
    write(
      `redeploy ran ${rerun.length} job(s), on ${redeployedRouters.join(", ") || "no router"}; the other routers were left alone`,
    );
    if (!options.keep)
      write(
        `the orchestration log is at ${service.url}/portal while the service runs: npm run demo -- --keep leaves it open`,
      );

    if (options.keep) {
      // A one-time code in the link, never the token: it signs the browser in once, within 5 minutes.
      const { mintSignInCode } = await import("../service/portal/sessions.js");
      const { parseToken, isParsedToken } = await import("../contract/token.js");
      const parsed = parseToken(token);
      if (isParsedToken(parsed)) {
        const code = await mintSignInCode(
          service.app.db,
          { teamId: parsed.teamId, tokenId: parsed.tokenId },
          new Date(),
        );
        write("");
        write(`portal: ${service.url}/portal/sign-in/code/${code}`);
        write(
          `        (a one-time sign-in link, good for 5 minutes; the browser must trust ${service.caFile ?? "the service's CA"})`,
        );
      }
      const envFile = join(dir, "env.sh");
      await writeFile(
        envFile,
        Object.entries({ ...env, ROUTERJOBS_FLEET: JSON.stringify(routers) })
          .filter(([name]) => name.startsWith("ROUTERJOBS_"))
          .map(([name, value]) => `export ${name}=${shellQuote(String(value))}\n`)
          .join(""),
        { mode: 0o600 },
      );
      write("");
      write(`--keep: the service and the receiver keep running (Ctrl-C stops them). To deploy against them:`);
      write(
        `  source ${envFile}    # ROUTERJOBS_URL, ROUTERJOBS_TOKEN, ROUTERJOBS_CA_FILE, receiver settings, the fleet`,
      );
      // `routerjobs` is on no PATH in a checkout (npm links a package's bin for its dependents, not for
      // itself); npx finds the checkout's own bin from any folder inside it. The folder is absolute: the
      // user's shell may be anywhere.
      write(
        `  cd ${shellQuote(dirname(FLEET_APP))} && npx tsx main.ts && npx routerjobs deploy --dir cdktf.out/stacks/office-fleet`,
      );
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    }
    return { jobs, backups, apiRequests: spent, redeployedRouters };
  } finally {
    // Whatever happened (done, failed, Ctrl-C, or --keep ended by Ctrl-C), nothing started here outlives the demo.
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

/** Runs a step; a failure shows the step's own output, since that is where the reason is. */
async function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  signal: AbortSignal,
) {
  signal.throwIfAborted();
  const step = runGroup(command, args, options);
  const stop = () => stopGroup(step.child);
  signal.addEventListener("abort", stop, { once: true });
  try {
    const { code, output } = await step.done;
    signal.throwIfAborted();
    if (code !== 0)
      throw new EnvironmentError(`${command} ${args.join(" ")} failed (exit ${code}):\n${output.trim()}`);
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

async function showRouter(
  service: RunningService,
  token: string,
  budgetDir: string,
  router: { id: string; name: string },
  write: (line: string) => void,
) {
  const client = new RouterJobsClient({
    baseUrl: service.url,
    token,
    ...(service.ca ? { ca: service.ca } : {}),
    budgetDir,
  });
  try {
    const [identity] = await client.execute(router.id, "/system/identity/print");
    const addresses = await client.execute(router.id, "/ip/address/print");
    const rules = await client.execute(router.id, "/ip/firewall/filter/print");
    write(`${router.name} read back through the synchronous endpoint: identity "${identity?.name}"`);
    for (const address of addresses)
      write(`  /ip address  ${address.address?.padEnd(18)} on ${address.interface}`);
    write(
      `  /ip firewall filter: ${rules.length} rules (${countByText(rules.map((rule) => `${rule.chain}/${rule.action}`))})`,
    );
  } finally {
    await client.close();
  }
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function countByText(values: readonly string[]): string {
  return Object.entries(countBy(values))
    .map(([value, n]) => `${n} ${value}`)
    .join(", ");
}

/** Single-quoted for sh: the value as is, with each `'` closed, escaped and reopened. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
