import { describe, expect, it } from "vitest";
import { catalog } from "../../../src/routeros/simulator/catalog.js";
import { call, fail, freshRouter, run } from "./helpers.js";

describe("catalog", () => {
  it("knows menus and their parents", () => {
    expect(catalog.isMenu([])).toBe(true);
    expect(catalog.isMenu(["ip"])).toBe(true);
    expect(catalog.isMenu(["ip", "firewall", "filter"])).toBe(true);
    expect(catalog.isMenu(["ip", "adress"])).toBe(false);
  });

  it("offers only the verbs each menu has", () => {
    expect(catalog.hasCommand(["ip", "firewall", "filter"], "move")).toBe(true);
    expect(catalog.hasCommand(["ip", "address"], "move")).toBe(false);
    expect(catalog.hasCommand(["ip", "service"], "add")).toBe(false);
    expect(catalog.hasCommand(["interface", "ethernet"], "remove")).toBe(false);
    expect(catalog.hasCommand(["system", "identity"], "add")).toBe(false);
    expect(catalog.hasCommand(["system"], "reboot")).toBe(true);
    expect(catalog.hasCommand(["system", "backup"], "save")).toBe(true);
    expect(catalog.hasCommand([], "export")).toBe(true);
    expect(catalog.hasCommand(["ip"], "export")).toBe(true);
    expect(catalog.hasCommand(["ip"], "print")).toBe(false);
  });

  it("makes the parser reject misspelled menus and verbs with RouterOS's text", async () => {
    const router = freshRouter();
    expect(await fail(router, "/ip adress print")).toBe("bad command name adress (line 1 column 5)");
    expect(await fail(router, "/ip address ads address=10.0.0.1/24")).toBe(
      "bad command name ads (line 1 column 13)",
    );
  });

  it("knows the arguments of each command: properties, the verb's own, and flags", () => {
    const takes = (path: string, verb: string, name: string) =>
      catalog.hasArgument(path.split(" ").filter(Boolean), verb, name);
    expect(takes("ip address", "add", "address")).toBe(true);
    expect(takes("ip address", "add", "adress")).toBe(false);
    // read-only properties are shown and filtered on, never written
    expect(takes("interface ethernet", "set", "default-name")).toBe(false);
    expect(takes("interface ethernet", "find", "mac-address")).toBe(true);
    expect(takes("ip firewall filter", "add", "place-before")).toBe(true);
    expect(takes("ip address", "add", "place-before")).toBe(false);
    expect(takes("ip firewall filter", "move", "destination")).toBe(true);
    expect(takes("ip address", "print", "detail")).toBe(true);
    expect(takes("ip address", "print", "where")).toBe(true);
    expect(takes("ip address", "remove", "where")).toBe(false);
    expect(takes("ip address", "set", "numbers")).toBe(true);
    expect(takes("system identity", "set", "numbers")).toBe(false);
    expect(takes("system clock", "set", "time")).toBe(true);
    expect(takes("system backup", "save", "dont-encrypt")).toBe(true);
    expect(takes("system", "reboot", "now")).toBe(false);
    expect(takes("", "export", "file")).toBe(true);
    expect(takes("ip", "export", "detail")).toBe(false);
    expect(takes("ip adress", "add", "address")).toBe(false);
  });

  it("rejects a misspelled argument before any line runs, at the argument", async () => {
    // GIVEN a script whose first line is fine and whose second misspells `address`
    const router = freshRouter();
    const script = "/system identity set name=a\n/ip address add adress=10.0.0.1/24 interface=ether1";
    // WHEN it runs
    const error = await fail(router, script);
    // THEN it fails at the misspelled name and the first line did not run either
    expect(error).toBe("expected end of command (line 2 column 17)");
    expect(await run(router, ":put [/system identity get name]")).toBe("lab");
    expect(await run(router, "/ip address print count-only")).toBe("0");
  });

  it("runs the same script once the argument is right", async () => {
    const router = freshRouter();
    await run(router, "/system identity set name=a\n/ip address add address=10.0.0.1/24 interface=ether1");
    expect(await run(router, ":put [/system identity get name]")).toBe("a");
    expect(await run(router, ":put [/ip address get [find] interface]")).toBe("ether1");
  });

  it("reads a flag word the command does not take as the item it names", async () => {
    const router = freshRouter();
    await run(router, '/system script add name=detail source=":put ran"');
    expect(await run(router, "/system script run detail")).toBe("ran");
  });

  it("checks commands that bypass the parser with the same lists", () => {
    const router = freshRouter();
    expect(() => router.execute(call("system", "reboot", { now: true }))).toThrow("expected end of command");
    expect(() => router.execute(call("log", "info", { text: "x" }))).toThrow("expected end of command");
  });
});

describe("menus of extra packages (container, interface veth, caps-man)", () => {
  it("configures a container on a veth as an RB5009 with the container package does", async () => {
    const router = freshRouter("lab", { model: "RB5009" });
    await run(
      router,
      [
        "/interface veth add name=veth-dns address=172.17.0.2/24 gateway=172.17.0.1",
        "/interface bridge port add bridge=bridge interface=veth-dns",
        "/container config set registry-url=https://registry-1.docker.io tmpdir=usb1/tmp",
        "/container envs add list=dns key=TZ value=Europe/Riga",
        "/container add remote-image=pihole/pihole:latest interface=veth-dns root-dir=usb1/pihole envlists=dns start-on-boot=yes",
        "/caps-man manager set enabled=yes",
      ].join("\n"),
    );
    const exported = await run(router, "/export");
    expect(exported).toContain("/interface veth\nadd address=172.17.0.2/24 gateway=172.17.0.1 name=veth-dns");
    expect(exported).toContain("/container envs\nadd key=TZ list=dns value=Europe/Riga");
    expect(exported).toContain("/caps-man manager\nset enabled=yes");
  });

  it("refuses what 7.24's container package does not take", async () => {
    // RouterOS 7.24 names an environment list with list=, not name= as earlier versions did.
    expect(await fail(freshRouter(), "/container envs add name=dns key=TZ value=UTC")).toMatch(
      /^expected end of command/,
    );
  });
});

describe("built-in items of generic menus", () => {
  it("has the firewall helpers and the logging actions every RouterOS has, exporting only changes", async () => {
    const router = freshRouter();
    expect(await run(router, "/ip firewall service-port export")).not.toContain("set ");
    await run(
      router,
      [
        "/ip firewall service-port set ftp disabled=yes",
        "/ip firewall service-port set [find name=sip] disabled=yes",
        "/system logging action set memory memory-lines=2000",
      ].join("\n"),
    );
    expect(await run(router, ":put [/ip firewall service-port get tftp ports]")).toBe("69");
    expect(await run(router, "/ip firewall service-port export")).toContain(
      "set ftp disabled=yes\nset sip disabled=yes",
    );
    expect(await run(router, "/system logging action export")).toContain("set memory memory-lines=2000");
    expect(await fail(router, "/ip firewall service-port set telnet disabled=yes")).toMatch(/^no such item/);
  });
});
