import { describe, expect, it } from "vitest";
import { catalog } from "../../../../src/service/routers/simulated/catalog.js";
import { fail, freshRouter } from "./helpers.js";

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
    expect(await fail(router, "/ip address ad address=10.0.0.1/24")).toBe(
      "bad command name ad (line 1 column 13)",
    );
  });
});
