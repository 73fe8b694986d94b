import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessAlive } from "../../platform/fs/process-alive.js";

const PREFIX = "routerjobs-deploy-";
/** A deploy folder's name, `routerjobs-deploy-<pid>-<random>`: group 1 is the pid. */
const DEPLOY_FOLDER = new RegExp(`^${PREFIX}(\\d+)-`);

/**
 * A private folder for one deploy's knowledge file (the job lists its provisioners read), named by the deploy's
 * process id. A deploy removes its folder when it ends; one killed outright (SIGKILL, a CI runner's timeout)
 * cannot, so each deploy first removes the folders of deploys whose process is gone. A folder of another user,
 * or of a process still alive, stays.
 */
export async function makeDeployFolder(parent: string = tmpdir()): Promise<string> {
  await removeFoldersOfDeadDeploys(parent);
  return mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
}

async function removeFoldersOfDeadDeploys(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(DEPLOY_FOLDER.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    // Best effort: another deploy may be removing it too, or it may not be ours to remove.
    await rm(join(parent, name), { recursive: true, force: true }).catch(() => {});
  }
}
