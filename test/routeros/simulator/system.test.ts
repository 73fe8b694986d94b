import { describe, expect, it } from "vitest";
import { backupLimit } from "../../../src/routeros/simulator/router.js";
import { fail, freshRouter, run } from "./helpers.js";

describe("/system", () => {
  it("sets the identity and prints it like RouterOS", async () => {
    const router = freshRouter("edge-1");
    expect(await run(router, "/system identity print")).toBe("  name: edge-1");
    await run(router, "/system identity set name=core");
    expect(await run(router, ":put [/system identity get name]")).toBe("core");
  });

  it("reads and sets the clock without exporting time or date", async () => {
    const router = freshRouter();
    expect(await run(router, ":put [/system clock get time]")).toBe("10:00:00");
    await run(router, "/system clock set time=12:30:00 date=2027-01-02 time-zone-name=Europe/Riga");
    expect(await run(router, ':put ([/system clock get date] . " " . [/system clock get time])')).toBe(
      "2027-01-02 12:30:00",
    );
    expect(await fail(router, "/system clock set time=25:99:00")).toMatch(/^invalid value for argument time/);
    expect(await run(router, "/system clock export")).toBe(
      "# RouterOS 7.24 (simulated) export\n/system clock\nset time-zone-name=Europe/Riga",
    );
  });

  it("configures the NTP client", async () => {
    const router = freshRouter();
    await run(router, "/system ntp client set enabled=yes servers=pool.ntp.org,192.0.2.1");
    expect(await run(router, ":put [/system ntp client get enabled]")).toBe("true");
    expect(await fail(router, "/system ntp client set enabled=maybe")).toMatch(
      /^invalid value for argument enabled/,
    );
  });

  it("stamps scheduler tasks with the clock and refuses duplicate names", async () => {
    const router = freshRouter();
    await run(router, '/system scheduler add name=tick interval=5m on-event=":log info tick"');
    expect(await run(router, ":put [/system scheduler get tick start-date]")).toBe("2026-11-22");
    expect(await run(router, ":put [/system scheduler get tick interval]")).toBe("5m");
    expect(await fail(router, "/system scheduler add name=tick")).toMatch(/^failure: already have such name/);
  });

  it("runs stored scripts against the same router", async () => {
    const router = freshRouter();
    await run(
      router,
      '/system script add name=setup source="/ip pool add name=fromscript ranges=10.0.0.1-10.0.0.2"',
    );
    await run(router, "/system script run setup");
    expect(await run(router, ":put [/ip pool get fromscript ranges]")).toBe("10.0.0.1-10.0.0.2");
  });

  it("takes code in braces as a script's source and a scheduler's on-event: checked as code, kept as written", async () => {
    const router = freshRouter();
    await run(
      router,
      [
        "/system script add name=rotate-dns policy=read,write source={",
        '  :local servers {"9.9.9.9";"1.1.1.1"}',
        "  /ip dns set servers=[:pick $servers 0]",
        "}",
        "/system scheduler add name=nightly interval=1d on-event={ /system script run rotate-dns }",
      ].join("\n"),
    );
    expect(await run(router, ":put [/system script get rotate-dns source]")).toBe(
      '\n  :local servers {"9.9.9.9";"1.1.1.1"}\n  /ip dns set servers=[:pick $servers 0]\n',
    );
    expect(await run(router, ":put [/system scheduler get nightly on-event]")).toBe(
      " /system script run rotate-dns ",
    );
    await run(router, "/system script run rotate-dns");
    expect(await run(router, ":put [/ip dns get servers]")).toBe("9.9.9.9");
    // The block is code: a command 7.24 does not have fails the line that writes it, not a later run.
    expect(await fail(router, "/system script add name=typo source={ /ip adress print }")).toMatch(
      /^bad command name adress \(line 1 column 43\)/,
    );
    // A block is a value of a named argument only.
    expect(await fail(router, "/ip address print { :put 1 }")).toMatch(/^syntax error/);
  });

  it("saves and loads backups exactly, and asks for a reboot after a load", async () => {
    const router = freshRouter();
    await run(
      router,
      "/ip address add address=10.0.0.1/24 interface=ether2\n/system backup save name=before",
    );
    const before = await run(router, "/export");
    const arp = await run(router, "/ip arp print");
    await run(
      router,
      "/ip address remove [find]\n/interface bridge add name=br\n/system identity set name=changed",
    );
    expect(router.takeRebootRequest()).toBe(false);
    await run(router, "/system backup load name=before");
    expect(router.takeRebootRequest()).toBe(true);
    expect(await run(router, "/export")).toBe(before);
    expect(await run(router, "/ip arp print")).toBe(arp);
    expect(router.backupNames).toEqual(["before.backup"]);
    expect(await fail(router, "/system backup load name=missing")).toMatch(/^failure: no such file/);
  });

  it("keeps the newest backups only, so a persisted router stays bounded", async () => {
    const router = freshRouter();
    for (let i = 0; i <= backupLimit; i++) router.saveBackup(`b${i}`);
    router.saveBackup("b1");
    expect(router.backupNames).toHaveLength(backupLimit);
    expect(router.backupNames.slice(0, 2)).toEqual(["b2.backup", "b3.backup"]);
    expect(router.backupNames.at(-1)).toBe("b1.backup");
    expect(await run(router, '/log print count-only where topics~"warning"')).toBe("1");
  });

  it("requests a reboot from /system reboot", async () => {
    const router = freshRouter();
    await run(router, "/system reboot");
    expect(router.takeRebootRequest()).toBe(true);
    expect(router.takeRebootRequest()).toBe(false);
  });
});

describe("/user, /snmp, /log", () => {
  it("manages users without printing passwords", async () => {
    const router = freshRouter();
    await run(router, "/user add name=ops group=read password=secret");
    expect(await run(router, "/user print")).not.toContain("secret");
    expect(await fail(router, "/user add name=ops group=full")).toMatch(
      /^failure: user with the same name already exists/,
    );
    expect(await fail(router, "/user add name=x group=root")).toMatch(
      /^input does not match any value of group/,
    );
    await run(router, "/user remove admin");
    expect(await run(router, "/user print count-only")).toBe("1");
  });

  it("sets SNMP", async () => {
    const router = freshRouter();
    await run(router, '/snmp set enabled=yes contact="noc@example.com" trap-version=2');
    expect(await run(router, "/snmp export")).toBe(
      "# RouterOS 7.24 (simulated) export\n/snmp\nset contact=noc@example.com enabled=yes trap-version=2",
    );
  });

  it("logs script errors with topics script,error and prints the log", async () => {
    const router = freshRouter();
    await run(router, ':log warning "disk low"\n/log info "hello"');
    const error = await fail(router, "/ip pool add name=x ranges=1.2.3\n/ip pool print");
    expect(error).toBe("invalid value for argument ranges (line 1 column 1)");
    const log = await run(router, '/log print where topics~"error"');
    expect(log).toBe("2026-11-22 10:00:00 script,error invalid value for argument ranges (line 1 column 1)");
    expect(await run(router, "/log print count-only")).toBe("3");
  });
});
