/**
 * `npm run demo` end to end, as a newcomer runs it: the built CLI, the real terraform, the embedded service and
 * receiver. Checks the summary it prints, that the token never shows, and that nothing it started outlives it.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Agent, request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { processes } from "../helpers/processes.js";
import { terraformOrSkip } from "../helpers/terraform.js";
import { waitFor } from "../helpers/wait-for.js";
import { redeemSignInLink } from "../service/portal/portal-client.js";

const terraform = terraformOrSkip("the demo (it deploys with terraform)");
const ROOT = join(import.meta.dirname, "..", "..");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const SIGN_IN_LINK =
  /portal: (https:\/\/127\.0\.0\.1:\d+)(\/portal\/sign-in\/code\/\S+)\n\s+\(a one-time sign-in link.*must trust (\S+)\)/;

function startDemo(dir: string, ...flags: string[]) {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin", "routerjobs.js"), "demo", "--dir", dir, ...flags],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const done = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, done, output: () => output };
}

/** Processes working in the demo's folder or naming it: the demo, terraform, its provisioners. */
function processesUsing(dir: string): string[] {
  return processes()
    .filter(({ cwd, args }) => cwd?.startsWith(dir) || args.includes(dir))
    .map(({ pid, args }) => `${pid} ${args}`);
}

/** Waits until the demo has printed `pattern`; fails at once if it exits first. */
async function printed(
  demo: ReturnType<typeof startDemo>,
  pattern: RegExp,
  what: string,
  timeoutMs = 90_000,
) {
  await waitFor(
    () => {
      if (pattern.test(demo.output())) return true;
      if (demo.child.exitCode !== null)
        throw new Error(`the demo exited before printing ${what}:\n${demo.output()}`);
      return undefined;
    },
    { what: `the demo to print ${what}`, timeoutMs, intervalMs: 100, detail: () => demo.output() },
  );
}

/** Waits until no process works in the demo's folder any more: what the demo started takes a moment to exit. */
async function nothingLeftIn(dir: string) {
  await waitFor(() => processesUsing(dir).length === 0, {
    what: `every process in ${dir} to exit`,
    timeoutMs: 30_000,
    intervalMs: 200,
    detail: () => processesUsing(dir).join("; "),
  });
}

describe("npm run demo without Terraform", () => {
  it("says what to install and exits 5, having started nothing", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "rj-demo-test-"));
    try {
      const result = spawnSync(process.execPath, [join(ROOT, "bin", "routerjobs.js"), "demo", "--dir", dir], {
        cwd: ROOT,
        env: { ...process.env, PATH: join(dir, "no-terraform-here") },
        encoding: "utf8",
      });
      expect(result.status, result.stderr).toBe(5);
      expect(result.stderr).toMatch(/none is on PATH: install Terraform >= 1\.4 .* or OpenTofu/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(processesUsing(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(terraform === undefined)("npm run demo", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  // Deadlines for a broken build: a demo deploys 35 jobs and redeploys, and with other suites on the two
  // cores it once took over 300 s.
  it("deploys the fleet, sums up, redeploys only the changed router, and leaves nothing running", {
    timeout: 480_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "rj-demo-test-"));
    dirs.push(dir);
    const demo = startDemo(dir);
    const code = await demo.done;
    const output = demo.output();
    expect(code, output).toBe(0);
    // THEN every job of the five routers completed, each with a backup, confirmed at one request per job
    expect(output).toMatch(/summary: 35 jobs \(35 completed\), 35 backups taken before them/);
    expect(output).toMatch(/API requests spent: 40 of the key's budget of 60 per 1m/);
    // AND a router's configuration was read back, and only the changed router ran a job on redeploy
    expect(output).toMatch(/office-1 read back through the synchronous endpoint: identity "office-1"/);
    expect(output).toMatch(/redeploy ran 1 job\(s\), on office-1; the other routers were left alone/);
    // AND it says where the portal shows the orchestration log
    expect(output).toMatch(/the orchestration log is at https:\/\/127\.0\.0\.1:\d+\/portal/);
    // AND the live progress showed jobs queued, running and completed with times
    // Each job by its description, with the rollout wave apply adds to it (the first router is the canary).
    expect(output).toMatch(/office-\d +#\d +\S+ \(wave \d+\/\d+\) +completed after \d+\.\ds/);
    // AND the token it generated is in no line it printed
    expect(output).not.toMatch(/[0-9a-f-]{36}:[0-9a-f-]{36}:[A-Za-z0-9]{62}/);
    expect(processesUsing(dir)).toEqual([]);
    // AND its terraform state is in its folder, not in the checkout it was started from
    expect(readdirSync(dir)).toContain("terraform.office-fleet.tfstate");
    expect(readdirSync(ROOT).filter((name) => name.includes("tfstate"))).toEqual([]);
  });

  it("stops everything it started on Ctrl-C", { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "rj-demo-test-"));
    dirs.push(dir);
    const demo = startDemo(dir);
    // Into the deploy: a provisioner has submitted a job and waits for it, so terraform and it are running
    // (240 s, as the --keep test allows for its deploy: with a second suite on the two cores, the demo's
    // start, terraform init and the first submission once took more than 90 s)
    await printed(demo, /office-\d +#\d+ .* (queued|loaded|running)/, "a job of the deploy", 240_000);
    demo.child.kill("SIGINT");
    const code = await demo.done;
    // 130, as a shell reports Ctrl-C: the deploy did not finish
    expect(code, demo.output()).toBe(130);
    expect(demo.output()).toContain("demo interrupted; everything it started is stopped");
    await nothingLeftIn(dir);
    expect(readdirSync(dir)).toContain("service");
  });

  it("--keep leaves the service and receiver up for the user's own deploys and the portal link, and Ctrl-C stops them", {
    timeout: 600_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "rj-demo-test-"));
    dirs.push(dir);
    const demo = startDemo(dir, "--keep");
    // The notice follows both deploys: with two suites beside this one on the two cores, it once took over 240 s.
    await printed(demo, /--keep: the service and the receiver keep running/, "the --keep notice", 480_000);
    expect(demo.output()).toMatch(/source \S+env\.sh/);
    // WHEN the one-time portal link it printed is followed (a code in it, never the token)
    const [, origin, path, caFile] = SIGN_IN_LINK.exec(demo.output()) ?? [];
    expect(path, demo.output()).toBeDefined();
    const dispatcher = new Agent({ connect: { ca: readFileSync(caFile as string, "utf8") } });
    try {
      const first = await redeemSignInLink(`${origin}${path}`, dispatcher);
      // THEN its page's button signs the browser in: a session cookie and a redirect to the routers, all five listed
      expect(first.status).toBe(303);
      expect(first.headers.location).toBe("/portal");
      const session = [first.headers["set-cookie"] ?? []]
        .flat()
        .find((line) => line.startsWith("__Host-rj_session="));
      expect(session).toMatch(/HttpOnly; Secure; SameSite=Strict/);
      const routers = await request(`${origin}/portal`, {
        dispatcher,
        headers: { cookie: (session as string).split(";")[0] as string },
      });
      const page = await routers.body.text();
      expect(routers.statusCode).toBe(200);
      for (const name of ["office-1", "office-2", "office-3", "office-4", "office-5"])
        expect(page).toContain(`>${name}</a>`);
      expect(page).toContain("status-completed");
      // AND followed a second time, it is refused and signs nothing in
      const second = await redeemSignInLink(`${origin}${path}`, dispatcher);
      expect(second.status).toBe(401);
      expect(second.text).toContain("That sign-in link was used already or has expired.");
      expect(
        [second.headers["set-cookie"] ?? []].flat().some((line) => line.startsWith("__Host-rj_session=")),
      ).toBe(false);
    } finally {
      await dispatcher.close();
    }
    // WHEN the user points the CLI at what the demo printed (env.sh holds the token: mode 0600)
    const envFile = join(dir, "env.sh");
    expect(statSync(envFile).mode & 0o077).toBe(0);
    // (sourced by a real sh, as the user would: the file must be valid shell)
    const sourced = spawnSync("sh", ["-c", '. "$1" && env', "sh", envFile], { encoding: "utf8" });
    expect(sourced.status, sourced.stderr).toBe(0);
    const env = Object.fromEntries(
      sourced.stdout
        .split("\n")
        .filter((line) => line.startsWith("ROUTERJOBS_"))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    ) as Record<string, string>;
    expect(Object.keys(env)).toEqual(
      expect.arrayContaining([
        "ROUTERJOBS_URL",
        "ROUTERJOBS_TOKEN",
        "ROUTERJOBS_FLEET",
        "ROUTERJOBS_NOTIFY_URL",
      ]),
    );
    const fleet = JSON.parse(env.ROUTERJOBS_FLEET as string) as { id: string; name: string }[];
    const router = fleet.find((item) => item.name === "office-1")?.id as string;
    const jobs = spawnSync(process.execPath, [join(ROOT, "bin", "routerjobs.js"), "jobs", router, "--json"], {
      cwd: dir,
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    // THEN the kept service answers, with the jobs the demo ran on that router
    expect(jobs.status, jobs.stderr).toBe(0);
    const listed = JSON.parse(jobs.stdout) as { status: string }[];
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((job) => job.status === "completed")).toBe(true);
    // AND the command it printed for the user's own deploy starts the CLI from any shell, where no
    // `routerjobs` is on PATH (a checkout's own bin is linked nowhere)
    const printedDeploy = /^ {2}cd (.+?) && npx tsx main\.ts && (.+?) deploy --dir \S+$/m.exec(demo.output());
    expect(printedDeploy, demo.output()).not.toBeNull();
    const [, folder, cli] = printedDeploy as unknown as [string, string, string];
    const started = spawnSync("sh", ["-c", `cd ${folder} && ${cli} --version`], {
      cwd: tmpdir(),
      env: { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
      encoding: "utf8",
    });
    expect(started.stderr).not.toMatch(/not found/);
    expect(started.stdout.trim(), started.stderr).toBe(VERSION);
    // AND Ctrl-C stops everything
    demo.child.kill("SIGINT");
    expect(await demo.done, demo.output()).toBe(0);
    await nothingLeftIn(dir);
  });
});
