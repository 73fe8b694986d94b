/** The deploy's private folder (src/deploy/reconcile/deploy-folder.ts), and the folders that killed deploys left behind. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeDeployFolder } from "../../../src/deploy/reconcile/deploy-folder.js";
import { scratchDir } from "../../helpers/scratch.js";

/** The id of a process that ran and was reaped: no process has it now (ids are not reused at once). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid as number;
}

describe("a deploy's folder", () => {
  it("is private and named by the deploy's process; a folder of a deploy that died is removed, others stay", async () => {
    const parent = scratchDir("routerjobs-deploy-folder-");
    // GIVEN the folder of a deploy killed outright, its knowledge file still in it
    const killed = join(parent, `routerjobs-deploy-${await deadPid()}-Ab12Cd`);
    mkdirSync(killed);
    writeFileSync(join(killed, "deploy.json"), "{}");
    // AND the folder of a deploy still running (this test's parent process), and folders that are not deploys'
    const running = join(parent, `routerjobs-deploy-${process.ppid}-Ef34Gh`);
    mkdirSync(running);
    mkdirSync(join(parent, "routerjobs-deploy-notapid"));
    mkdirSync(join(parent, "someone-else-1"));
    // WHEN a deploy makes its folder
    const folder = await makeDeployFolder(parent);
    // THEN it is this process's, private, and the killed deploy's folder is gone; the others stay
    expect(basename(folder)).toMatch(new RegExp(`^routerjobs-deploy-${process.pid}-`));
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(existsSync(killed)).toBe(false);
    expect(readdirSync(parent).sort()).toEqual(
      [basename(folder), basename(running), "routerjobs-deploy-notapid", "someone-else-1"].sort(),
    );
    // AND a second deploy of the same process leaves the first one's folder alone
    const second = await makeDeployFolder(parent);
    expect(existsSync(folder)).toBe(true);
    expect(second).not.toBe(folder);
  });
});
