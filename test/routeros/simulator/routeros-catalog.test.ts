/**
 * The RouterOS 7.24 catalog (src/routeros/catalog) and what the simulated console does with it: every real
 * menu, command and argument is accepted, a misspelled one fails at parse time with RouterOS's text, values
 * are checked where RouterOS describes them, and menus for hardware the router lacks answer as such a router.
 */
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseKind, routerOsCatalog } from "../../../src/routeros/catalog/index.js";
import { apiCommand } from "../../../src/routeros/simulator/adapters/api-view.js";
import { fail, freshRouter, run } from "./helpers.js";

const root = join(import.meta.dirname, "..", "..", "..");
const schema = join(root, "..", "shared", "routeros", "inspect-7.24.json");

describe("the RouterOS 7.24 catalog", () => {
  it("is small and generated from RouterOS's own tree by the project's script", (context) => {
    const file = join(root, "src", "routeros", "catalog", "routeros-7.24.ts");
    expect(statSync(file).size).toBeLessThan(300_000);
    if (!existsSync(schema)) {
      if (process.env.CI === "true") throw new Error(`${schema} is missing`);
      console.log(`skipped the up-to-date check: ${schema} is missing`);
      return context.skip();
    }
    // --check exits non-zero (and execFileSync throws) when the file differs from a fresh build.
    execFileSync(process.execPath, [join(root, "scripts", "build-routeros-catalog.mjs"), "--check"]);
  });

  it("knows every menu, its commands and their arguments", () => {
    const catalog = routerOsCatalog();
    expect(catalog.menuPaths.length).toBeGreaterThan(424);
    expect(catalog.isMenu(["interface", "wireguard", "peers"])).toBe(true);
    expect(catalog.isMenu(["interface", "wireless"])).toBe(true);
    expect(catalog.isMenu(["ip", "adress"])).toBe(false);
    expect(catalog.commandsOf(["system", "resource"])).toEqual(["export", "get", "monitor", "print"]);
    expect(catalog.argumentsOf(["ip", "address"], "set")).toContain("numbers");
    expect(catalog.argumentsOf(["ip", "address"], "print")).toContain("where");
    expect(catalog.argumentsOf(["interface", "bridge"], "add")).toContain("arp-timeout");
    expect(catalog.namesAt(["ip", "firewall"])).toContain("filter");
  });

  it("reads RouterOS's descriptions of values as kinds", () => {
    const catalog = routerOsCatalog();
    expect(catalog.kindOf(["interface", "eoip"], "local-address")).toEqual({ kind: "ip" });
    expect(parseKind("i:0..4294967295")).toEqual({ kind: "int", min: 0, max: 4294967295 });
    expect(parseKind("l:sun|mon")).toEqual({ kind: "enum", values: ["sun", "mon"], list: true });
    expect(parseKind("t:1s..1h")).toEqual({ kind: "time", min: "1s", max: "1h" });
    expect(parseKind("s:1..16")).toEqual({ kind: "string", minLength: 1, maxLength: 16 });
    expect(parseKind("nonsense")).toBeUndefined();
  });
});

describe("the simulated console with the catalog", () => {
  it("accepts real menus and arguments it has no hand-written declaration for", async () => {
    const router = freshRouter();
    await run(
      router,
      [
        "/interface bridge add name=br arp-timeout=5m",
        "/interface bridge port add bridge=br interface=ether2 broadcast-flood=no",
        "/ip route add gateway=10.0.0.1 suppress-hw-offload=no",
        '/system script add name=s owner=ops source=":put 1"',
        "/interface gre add remote-address=198.51.100.1",
        "/ip address add address=10.9.9.1/30 interface=gre-tunnel1",
        "/tool netwatch add host=10.0.0.1 interval=10s",
      ].join("\n"),
    );
    const exported = await run(router, "/export");
    expect(exported).toContain("add arp-timeout=5m name=br");
    expect(exported).toContain("/interface gre\nadd name=gre-tunnel1 remote-address=198.51.100.1");
    expect(exported).toContain("/tool netwatch\nadd host=10.0.0.1 interval=10s");
    expect(await run(router, ":put [/system script get s owner]")).toBe("ops");
  });

  it("keeps secrets out of export and print, as RouterOS 7 does, and still stores them", async () => {
    const router = freshRouter();
    const privateKey = "YHqvhUtMe0k2dGk1ZYdNTyQmH3aqmq3z2bGfDKtOyVk=";
    await run(
      router,
      [
        `/interface wireguard add name=wg0 listen-port=13231 private-key="${privateKey}"`,
        "/ppp secret add name=branch password=ppp-password-123 service=pppoe",
      ].join("\n"),
    );
    const exported = await run(router, "/export");
    const printed = await run(router, "/interface wireguard print detail\n/ppp secret print detail");
    for (const text of [exported, printed]) {
      expect(text).not.toContain(privateKey);
      expect(text).not.toContain("ppp-password-123");
    }
    expect(exported).toContain("add listen-port=13231 name=wg0");
    expect(await run(router, ":put [/interface wireguard get wg0 private-key]")).toBe(privateKey);
  });

  it("rejects misspelled menus, commands and arguments at parse time with RouterOS's text", async () => {
    const router = freshRouter();
    expect(await fail(router, "/system identity set name=a\n/interface wireguard add listen-prot=1")).toBe(
      "expected end of command (line 2 column 26)",
    );
    expect(await run(router, ":put [/system identity get name]")).toBe("lab");
    expect(await fail(router, "/ipv6 adress print")).toBe("bad command name adress (line 1 column 7)");
    expect(await fail(router, "/tool netwatch ads host=1.1.1.1")).toBe(
      "bad command name ads (line 1 column 16)",
    );
  });

  it("checks values where RouterOS describes them", async () => {
    const router = freshRouter();
    expect(await fail(router, "/interface eoip add local-address=300.1.1.1 tunnel-id=1")).toMatch(
      /^invalid value for argument local-address/,
    );
    expect(await fail(router, "/tool netwatch add host=10.0.0.1 interval=soon")).toMatch(
      /^invalid value for argument interval/,
    );
    expect(await fail(router, "/ipv6 address add address=2001:db8::1/64 interface=nosuch")).toMatch(
      /^input does not match any value of interface/,
    );
  });

  it("answers for hardware it lacks as a router without it would", async () => {
    const router = freshRouter();
    expect(await run(router, "/interface wifi print count-only")).toBe("0");
    await run(router, "/interface wifi set [ find default-name=wifi1 ] disabled=no");
    expect(await fail(router, "/interface wifi set wifi1 disabled=no")).toMatch(/^no such item/);
    expect(await run(router, "/interface wireless print count-only")).toBe("0");
    expect(await fail(router, "/interface ethernet switch print")).toMatch(/^bad command name switch/);
    expect(await fail(router, "/interface monitor-traffic ether1 once")).toMatch(
      /not available on the simulated router/,
    );
  });

  it("prints system resource, interface counters and an address's actual interface", async () => {
    const router = freshRouter();
    expect(await run(router, ":put [/system resource get board-name]")).toBe("CHR");
    expect(await run(router, "/system resource print")).toContain("architecture-name: x86_64");
    await run(router, "/ip address add address=10.0.0.1/24 interface=ether1");
    const [address] = await apiCommand(router, "/ip/address/print");
    expect(address).toMatchObject({ interface: "ether1", actual_interface: "ether1" });
    const ether1 = (await apiCommand(router, "/interface/print")).find((r) => r.name === "ether1");
    expect(ether1).toMatchObject({ mtu: "1500", l2mtu: "1598", rx_byte: "0", tx_packet: "0" });
  });
});
