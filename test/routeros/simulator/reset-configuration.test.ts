/** `/system reset-configuration` and `/file`, as the rollback's restore script uses them. */
import { describe, expect, it } from "vitest";
import { SimulatedBackend } from "../../../src/routeros/simulator/index.js";
import { fail, freshRouter, run } from "./helpers.js";

const CONFIGURED = [
  "/interface bridge add name=lan",
  "/ip address add address=192.168.88.1/24 interface=lan",
  "/ip dns set servers=10.0.0.53 allow-remote-requests=yes",
  '/system identity set name="edge one"',
  "/user add name=ops group=read",
].join("\n");

describe("/system reset-configuration", () => {
  it("resets, runs the run-after-reset export, and asks for a reboot: the export comes back", async () => {
    const router = freshRouter("edge");
    await run(router, CONFIGURED);
    const before = await run(router, "/export");
    await run(router, "/export file=saved");
    await run(router, "/ip address remove [find]\n/interface bridge remove lan\n/ip dns set servers=9.9.9.9");
    await run(
      router,
      "/system reset-configuration no-defaults=yes skip-backup=yes run-after-reset=saved.rsc",
    );
    expect(await run(router, "/export")).toBe(before);
    expect(router.takeRebootRequest()).toBe(true);
    expect(router.logEntries.map((entry) => entry.message)).toContain("configuration reset");
  });

  it("keeps the users only with keep-users=yes, and the files either way", async () => {
    const router = freshRouter("edge");
    await run(router, CONFIGURED);
    await run(router, "/export file=saved\n/system backup save name=nightly");
    await run(router, "/system reset-configuration no-defaults=yes keep-users=yes");
    expect(await run(router, ":put [:len [/user find name=ops]]")).toBe("1");
    await run(router, "/system reset-configuration no-defaults=yes");
    expect(await run(router, ":put [:len [/user find name=ops]]")).toBe("0");
    expect(await run(router, ":put [/system identity get name]")).toBe("edge");
    expect(await run(router, ":put [:len [/file find]]")).toBe("2");
  });

  it("refuses a missing run-after-reset file before it changes anything", async () => {
    const router = freshRouter("edge");
    await run(router, CONFIGURED);
    const before = await run(router, "/export");
    expect(
      await fail(router, "/system reset-configuration no-defaults=yes run-after-reset=gone.rsc"),
    ).toMatch(/^failure: file gone.rsc not found/);
    expect(await run(router, "/export")).toBe(before);
    expect(router.takeRebootRequest()).toBe(false);
  });

  it("stops the run-after-reset script at its first error, keeps what ran, and logs it", async () => {
    const router = freshRouter("edge");
    router.writeFile(
      "broken.rsc",
      '/system identity set name=restored\n:error "bad line"\n/ip dns set servers=1.1.1.1',
    );
    await run(router, "/system reset-configuration no-defaults=yes run-after-reset=broken.rsc");
    expect(await run(router, ":put [/system identity get name]")).toBe("restored");
    expect(await run(router, "/ip dns export")).not.toContain("1.1.1.1");
    expect(router.logEntries.at(-1)?.message).toMatch(/run-after-reset script broken.rsc: bad line/);
  });

  it("takes only the arguments RouterOS 7.24 has, and does not power off", async () => {
    const router = freshRouter("edge");
    expect(await fail(router, "/system reset-configuration keep-everything=yes")).toMatch(
      /expected end of command/,
    );
    expect(await fail(router, "/system reset-configuration shutdown=yes")).toMatch(
      /shutdown is not available/,
    );
  });

  it("takes a simulated router offline for its reboot through the back end", async () => {
    const backend = new SimulatedBackend({ seed: 1, rebootOfflineMs: 60_000 });
    await backend.attach("r", { name: "edge" });
    const outcome = await backend.runScript("r", "/system reset-configuration no-defaults=yes");
    expect(outcome.ok).toBe(true);
    expect(backend.isOnline("r")).toBe(false);
  });
});

describe("/file", () => {
  it("lists export files and backups, finds and removes them, and is in no export or backup", async () => {
    const router = freshRouter("edge");
    await run(router, "/export file=a\n/system backup save name=b");
    expect(await run(router, "/file print")).toMatch(
      /0\s+a\.rsc\s+script\s+\d+\n1\s+b\.backup\s+backup\s+\d+/,
    );
    expect(await run(router, ':put [/file get [find name="a.rsc"] type]')).toBe("script");
    expect(await run(router, ':put [:len [/file find name="c.rsc"]]')).toBe("0");
    expect(await run(router, "/export")).not.toContain("/file");
    await run(router, "/file remove [find type=backup]");
    expect(router.backupNames).toEqual([]);
    expect(await run(router, ":put [:len [/file find]]")).toBe("1");
    // A text file can be written (a restore puts the export it was given there); a path out of the disk cannot.
    await run(router, '/file add name=x.txt contents="hello"');
    expect(await run(router, ':put [/file get [find name="x.txt"] contents]')).toBe("hello");
    expect(await run(router, "/export")).not.toContain("x.txt");
    expect(await fail(router, "/file add name=../x")).toMatch(/^invalid file name/);
  });
});
