/**
 * The model catalog and factory defaults: each board's ports, radios, serial port, switch chip and
 * RouterBOARD facts as RouterOS shows them, and the default configuration (defconf) a new router of that
 * model starts from, as its `/export` lists it.
 */
import { describe, expect, it } from "vitest";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { fail, fixedNow, freshRouter, run } from "./helpers.js";

const names = async (router: SimulatedRouter, menu: string) =>
  (await run(router, `:foreach i in=[/${menu} find] do={ :put [/${menu} get $i name] }`)).split("\n");

const range = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);

describe("the model catalog", () => {
  it.each([
    ["CHR", [...range("ether", 5)], [], [], []],
    ["hEX", [...range("ether", 5)], [], [], []],
    ["hAP ac2", [...range("ether", 5)], [], ["wlan1", "wlan2"], []],
    ["hAP ax2", [...range("ether", 5)], ["wifi1", "wifi2"], [], []],
    ["hAP ax3", [...range("ether", 5)], ["wifi1", "wifi2"], [], []],
    ["RB5009UG+S+IN", [...range("ether", 8), "sfp-sfpplus1"], [], [], ["serial0"]],
    ["CCR2004-16G-2S+", [...range("ether", 16), ...range("sfp-sfpplus", 2)], [], [], ["serial0"]],
    ["CRS326-24G-2S+", [...range("ether", 24), ...range("sfp-sfpplus", 2)], [], [], ["serial0"]],
  ])(
    "%s has its ports, radios and serial port as RouterOS names them",
    async (model, ethernet, wifi, wireless, serial) => {
      const router = freshRouter("lab", { model });
      expect(await names(router, "interface ethernet")).toEqual(ethernet);
      expect(await run(router, ":put [:len [/interface wifi find]]")).toBe(String(wifi.length));
      if (wifi.length > 0) expect(await names(router, "interface wifi")).toEqual(wifi);
      expect(await run(router, ":put [:len [/interface wireless find]]")).toBe(String(wireless.length));
      if (wireless.length > 0) expect(await names(router, "interface wireless")).toEqual(wireless);
      expect(await run(router, ":put [:len [/port find]]")).toBe(String(serial.length));
      if (serial.length > 0) expect(await names(router, "port")).toEqual(serial);
    },
  );

  it.each([
    ["hEX", "RB750Gr3", "hEX", "MT7621", "mmips"],
    ["hAP ax3", "C53UiG+5HPaxD2HPaxD", "hAP ax^3", "IPQ-PPE", "arm64"],
    ["RB5009", "RB5009UG+S+", "RB5009UG+S+", "88E6393X", "arm64"],
    ["CRS326", "CRS326-24G-2S+", "CRS326-24G-2S+", "98DX3236", "arm"],
  ])(
    "%s reports its RouterBOARD, switch chip and architecture",
    async (model, code, board, chip, architecture) => {
      const router = freshRouter("lab", { model });
      expect(await run(router, ":put [/system routerboard get model]")).toBe(code);
      expect(await run(router, ":put [/system routerboard get board-name]")).toBe(board);
      expect(await run(router, ":put [/system routerboard get serial-number]")).toMatch(/^[0-9A-Z]{11}$/);
      expect(await run(router, ":put [/interface ethernet switch get switch1 type]")).toBe(chip);
      expect(await run(router, ":put [/system resource get board-name]")).toBe(board);
      expect(await run(router, ":put [/system resource get architecture-name]")).toBe(architecture);
    },
  );

  it("gives each router of a model its own serial number and MACs, the same ones every time", async () => {
    const serial = (seedText: string) =>
      run(new SimulatedRouter({ model: "hEX", seedText }), ":put [/system routerboard get serial-number]");
    expect(await serial("a")).toBe(await serial("a"));
    expect(await serial("a")).not.toBe(await serial("b"));
  });

  it("keeps the default a five-port CHR without a RouterBOARD or a switch chip, as the router always was", async () => {
    const router = freshRouter();
    expect(router.model.name).toBe("CHR");
    expect(await names(router, "interface ethernet")).toEqual(range("ether", 5));
    expect(await run(router, "/export")).toBe("# RouterOS 7.24 (simulated) export");
    expect(await fail(router, "/system routerboard print")).toMatch(/^bad command name routerboard/);
    expect(await fail(router, "/interface ethernet switch print")).toMatch(/^bad command name switch/);
    expect(await run(router, ":put [/system resource get board-name]")).toBe("CHR");
  });

  it("runs a 24-port switch's configuration on that model, and refuses its ports on the small one", async () => {
    const script =
      "/interface bridge add name=trunk\n/interface bridge port add bridge=trunk interface=ether24";
    await run(freshRouter("lab", { model: "CRS326-24G-2S+" }), script);
    expect(await fail(freshRouter(), script)).toMatch(/^input does not match any value of interface/);
  });

  it("names the known models when asked for one it does not have", () => {
    expect(() => new SimulatedRouter({ model: "RB951G-2HnD" })).toThrow(
      'unknown router model "RB951G-2HnD": known models are CHR, hEX, hAP ac2, hAP ax2, hAP ax3, RB5009, CCR2004-16G-2S+, CRS326-24G-2S+',
    );
  });

  it("finds a model by its product code or box name, whatever the case", () => {
    expect(new SimulatedRouter({ model: "rb750gr3" }).model.name).toBe("hEX");
    expect(new SimulatedRouter({ model: "C52iG-5HaxD2HaxD" }).model.name).toBe("hAP ax2");
    expect(new SimulatedRouter({ model: "hap ax3" }).model.name).toBe("hAP ax3");
  });
});

describe("the model in the router's snapshot", () => {
  it("comes back with the snapshot, whatever model the restoring router was made as", async () => {
    const hex = new SimulatedRouter({ model: "hEX", seedText: "s", now: fixedNow });
    await run(hex, "/interface ethernet set ether5 comment=uplink");
    const snapshot = JSON.parse(JSON.stringify(hex.snapshot()));
    expect(snapshot.model).toBe("hEX");
    const restored = new SimulatedRouter({ seedText: "s", now: fixedNow });
    restored.restore(snapshot);
    expect(restored.model.name).toBe("hEX");
    expect(await run(restored, ":put [/system routerboard get model]")).toBe("RB750Gr3");
    expect(await run(restored, "/export")).toBe(await run(hex, "/export"));
  });

  it("loads a snapshot taken before routers had models as the default model", () => {
    const snapshot = freshRouter().snapshot();
    const { model: _model, ...older } = snapshot;
    const restored = new SimulatedRouter({ model: "CRS326" });
    restored.restore(older);
    expect(restored.model.name).toBe("CHR");
  });

  it("refuses a snapshot of a model it does not know, naming the field and the known models", () => {
    const snapshot = { ...freshRouter().snapshot(), model: "RB951" };
    expect(() => freshRouter().restore(snapshot)).toThrow(
      /model[\s\S]*must be one of the known router models \(CHR, hEX/,
    );
  });
});
