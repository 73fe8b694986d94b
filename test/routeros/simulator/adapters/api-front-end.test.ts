/**
 * The simulated device over the RouterOS API, as a client on loopback sees it: unset words, stable ids, what
 * print shows, typed `/system/resource`, and the commands that stream until `/cancel`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type ApiRecord, RouterApiClient } from "../../../../src/routeros/api/client.js";
import { RouterApiTrapError } from "../../../../src/routeros/api/errors.js";
import { SimulatedRouter } from "../../../../src/routeros/simulator/router.js";
import { PASSWORD, startDevice, type TestDevice, USER } from "../../api/device.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function session(options: Parameters<typeof startDevice>[0] = {}) {
  const device: TestDevice = await startDevice(options);
  cleanups.push(() => device.server.close());
  const client = await RouterApiClient.connect({
    host: "127.0.0.1",
    port: device.server.port,
    user: USER,
    password: PASSWORD,
    allowPlaintext: true,
  });
  cleanups.push(() => client.close());
  const api = async (command: string, attributes: Record<string, string> = {}, queries: string[] = []) =>
    client.command({ command, attributes, queries });
  const trapOf = (command: string, attributes: Record<string, string> = {}) =>
    api(command, attributes).then(
      () => expect.fail(`${command} should have been refused`),
      (error: unknown) => {
        expect(error).toBeInstanceOf(RouterApiTrapError);
        return (error as RouterApiTrapError).routerMessage;
      },
    );
  const records = async (command: string, queries: string[] = []): Promise<ApiRecord[]> =>
    (await api(command, {}, queries)).records;
  return { device, client, api, trapOf, records };
}

describe("unset words", () => {
  it("=!prop= in set takes a property back to its default, as the console's unset does", async () => {
    const { api, records, trapOf } = await session();
    const added = await api("/ip/firewall/filter/add", {
      chain: "input",
      action: "drop",
      "src-address": "192.0.2.0/24",
      comment: "old",
      "hw-offload": "yes",
    });
    const id = added.done.ret as string;
    await api("/ip/firewall/filter/set", {
      ".id": id,
      "!comment": "",
      "!src-address": "",
      "!hw-offload": "",
    });
    const [rule] = await records("/ip/firewall/filter/print", [`?.id=${id}`]);
    expect(rule).toMatchObject({ ".id": id, chain: "input", action: "drop" });
    expect(rule).not.toHaveProperty("comment");
    expect(rule).not.toHaveProperty("src-address");
    expect(rule).not.toHaveProperty("hw-offload");
    // In add, an unset word names a property the new item simply lacks.
    const bare = await api("/ip/firewall/filter/add", {
      chain: "forward",
      "!comment": "",
      "!log-prefix": "",
    });
    const [second] = await records("/ip/firewall/filter/print", [`?.id=${bare.done.ret}`]);
    expect(second).not.toHaveProperty("comment");
    // A built-in item's property goes back to the value it had out of the box.
    await api("/interface/ethernet/set", { ".id": "ether2", mtu: "9000", comment: "jumbo" });
    await api("/interface/ethernet/set", { ".id": "ether2", "!mtu": "", "!comment": "" });
    const [ether2] = await records("/interface/ethernet/print", ["?name=ether2"]);
    expect(ether2).toMatchObject({ name: "ether2", mtu: "1500" });
    expect(ether2).not.toHaveProperty("comment");
    expect(await trapOf("/ip/firewall/filter/set", { ".id": id, "!chain": "" })).toBe(
      "input does not match any value of value-name",
    );
    expect(await trapOf("/ip/firewall/filter/set", { ".id": id, "!colour": "" })).toBe(
      "expected end of command",
    );
    expect(await trapOf("/ip/firewall/filter/set", { ".id": id, comment: "x", "!comment": "" })).toBe(
      "both comment and !comment given",
    );
    expect(await trapOf("/ip/firewall/filter/remove", { ".id": id, "!comment": "" })).toBe(
      "expected end of command",
    );
    // A refused set changes nothing.
    await api("/ip/firewall/filter/set", { ".id": id, comment: "kept" });
    await trapOf("/ip/firewall/filter/set", { ".id": id, "!comment": "", "!chain": "" });
    expect((await records("/ip/firewall/filter/print", [`?.id=${id}`]))[0]).toMatchObject({
      comment: "kept",
    });
  });
});

describe("stable .ids", () => {
  const ids = (list: ApiRecord[]) => Object.fromEntries(list.map((record) => [record.name, record[".id"]]));

  it("a file keeps its .id when another is removed, and no .id is handed out twice", async () => {
    const { api, records } = await session();
    for (const name of ["a", "b", "c"]) await api("/export", { file: name });
    await api("/system/backup/save", { name: "before" });
    const before = ids(await records("/file/print"));
    expect(Object.keys(before)).toEqual(["a.rsc", "b.rsc", "c.rsc", "before.backup"]);
    await api("/file/remove", { ".id": before["a.rsc"] as string });
    const after = ids(await records("/file/print"));
    expect(after).toEqual({
      "b.rsc": before["b.rsc"],
      "c.rsc": before["c.rsc"],
      "before.backup": before["before.backup"],
    });
    // Removing by the listed id removes that file, whatever was removed before it.
    await api("/file/remove", { ".id": before["before.backup"] as string });
    expect(ids(await records("/file/print"))).toEqual({ "b.rsc": before["b.rsc"], "c.rsc": before["c.rsc"] });
    await api("/export", { file: "d" });
    await api("/export", { file: "b" });
    const latest = ids(await records("/file/print"));
    expect(latest["b.rsc"]).toBe(before["b.rsc"]);
    expect(Object.values(before)).not.toContain(latest["d.rsc"]);
  });

  it("items keep their .ids across a snapshot and restore (a reboot), and a loaded backup reuses none", async () => {
    const { device, api, records } = await session();
    const first = (await api("/ip/address/add", { address: "10.0.0.1/24", interface: "ether1" })).done.ret;
    await api("/system/backup/save", { name: "one" });
    const second = (await api("/ip/address/add", { address: "10.0.1.1/24", interface: "ether2" })).done.ret;
    await api("/export", { file: "x" });
    // What a state file holds, read back by a device that starts again.
    const restored = new SimulatedRouter();
    restored.restore(JSON.parse(JSON.stringify(device.router.snapshot())));
    restored.reboot();
    expect(restored.snapshot().config["ip-address"]?.items.map((item) => item.id)).toEqual([1, 2]);
    expect(restored.snapshot().fileIds).toEqual(device.router.snapshot().fileIds);
    expect(restored.table("file").items.map((item) => item.id)).toEqual(
      device.router.table("file").items.map((item) => item.id),
    );
    await api("/system/backup/load", { name: "one" });
    const third = (await api("/ip/address/add", { address: "10.0.2.1/24", interface: "ether3" })).done.ret;
    expect(third).not.toBe(second);
    expect((await records("/ip/address/print")).map((record) => record[".id"])).toEqual([first, third]);
  });
});

describe("what print shows", () => {
  it("a firewall rule gives what was written, log, log-prefix and its counters, never every default", async () => {
    const { api, records } = await session({ model: "hEX" });
    const [established] = await records("/ip/firewall/filter/print", ["?comment=defconf: fasttrack"]);
    expect(established).toEqual({
      ".id": expect.stringMatching(/^\*[0-9A-F]+$/),
      chain: "forward",
      action: "fasttrack-connection",
      "connection-state": "established,related",
      log: "false",
      "log-prefix": "",
      bytes: "0",
      packets: "0",
      invalid: "false",
      dynamic: "false",
      disabled: "false",
      comment: "defconf: fasttrack",
    });
    const nat = (await api("/ip/firewall/nat/add", { chain: "srcnat", action: "masquerade" })).done.ret;
    const [masquerade] = await records("/ip/firewall/nat/print", [`?.id=${nat}`]);
    expect(Object.keys(masquerade ?? {})).toEqual([
      ".id",
      "chain",
      "action",
      "log",
      "log-prefix",
      "bytes",
      "packets",
      "invalid",
      "dynamic",
      "disabled",
    ]);
    const mark = (
      await api("/ip/firewall/mangle/add", {
        chain: "prerouting",
        action: "mark-connection",
        "new-connection-mark": "m",
        passthrough: "yes",
      })
    ).done.ret;
    expect((await records("/ip/firewall/mangle/print", [`?.id=${mark}`]))[0]).toMatchObject({
      passthrough: "true",
      "new-connection-mark": "m",
    });
    const route = (await api("/ip/route/add", { "dst-address": "10.9.0.0/16", gateway: "192.0.2.1" })).done
      .ret;
    const [static_] = await records("/ip/route/print", [`?.id=${route}`]);
    expect(static_).toMatchObject({ distance: "1" });
    expect(static_).not.toHaveProperty("blackhole");
  });
});

describe("what the board reports", () => {
  it("/system/resource/print answers numbers in bytes, uptime in whole units, every field RouterOS has", async () => {
    const { records } = await session({ model: "hEX" });
    const [resource] = await records("/system/resource/print");
    expect(resource).toEqual({
      uptime: expect.stringMatching(/^(\d+w)?(\d+d)?(\d+h)?(\d+m)?\d+s$/),
      version: "7.24 (stable)",
      "build-time": expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      "factory-software": "7.1",
      "free-memory": String(225 * 1024 * 1024),
      "total-memory": String(256 * 1024 * 1024),
      cpu: "MIPS 1004Kc V2.15",
      "cpu-count": "4",
      "cpu-frequency": "880",
      "cpu-load": "1",
      "free-hdd-space": String(10 * 1024 * 1024),
      "total-hdd-space": String(16 * 1024 * 1024),
      "write-sect-since-reboot": "0",
      "write-sect-total": "0",
      "bad-blocks": "0",
      "architecture-name": "mmips",
      "board-name": "hEX",
      platform: "MikroTik",
    });
    expect((await records("/system/routerboard/settings/print"))[0]).toMatchObject({
      "auto-upgrade": "false",
      "boot-device": "nand-if-fail-then-ethernet",
    });
    const [board] = await records("/system/routerboard/print");
    expect(board).toMatchObject({ routerboard: "true", model: "RB750Gr3", "current-firmware": "7.24" });
    expect(await records("/system/package/print")).toMatchObject([
      {
        ".id": "*1",
        name: "routeros",
        version: "7.24",
        "build-time": resource?.["build-time"],
        scheduled: "",
        disabled: "false",
      },
    ]);
  });

  it("the console prints the same figures in its words; a CHR has no /system/routerboard", async () => {
    const { device, trapOf, records } = await session();
    const printed = await device.router.runScript(
      "/system resource print\n:put ([/system resource get free-memory] + 0)",
    );
    expect(printed.output).toContain("free-memory: 900.0MiB");
    expect(printed.output).toContain(String(900 * 1024 * 1024));
    expect(await trapOf("/system/routerboard/print")).toBe("bad command name routerboard");
    expect(await trapOf("/system/routerboard/settings/print")).toBe("bad command name settings");
    expect((await records("/system/package/print")).map((item) => item.name)).toEqual(["routeros"]);
  });
});

describe("commands that stream", () => {
  it("/ping answers from what the router can reach and times out elsewhere, with running totals", async () => {
    const { api, records } = await session();
    await api("/ip/address/add", { address: "192.0.2.1/24", interface: "ether1" });
    const [neighbour] = await records("/ip/arp/print");
    const own = await api("/ping", { address: "192.0.2.1", count: "2", interval: "10ms" });
    expect(own.records).toEqual([
      {
        seq: "0",
        host: "192.0.2.1",
        size: "56",
        ttl: "64",
        time: "0ms",
        sent: "1",
        received: "1",
        "packet-loss": "0",
        "min-rtt": "0ms",
        "avg-rtt": "0ms",
        "max-rtt": "0ms",
      },
      {
        seq: "1",
        host: "192.0.2.1",
        size: "56",
        ttl: "64",
        time: "0ms",
        sent: "2",
        received: "2",
        "packet-loss": "0",
        "min-rtt": "0ms",
        "avg-rtt": "0ms",
        "max-rtt": "0ms",
      },
    ]);
    const lo = await api("/ping", { address: "127.0.0.1", count: "1" });
    expect(lo.records[0]).toMatchObject({ received: "1", "packet-loss": "0" });
    const near = await api("/tool/ping", { address: neighbour?.address as string, count: "1" });
    expect(near.records[0]).toMatchObject({ time: "1ms", received: "1" });
    const far = await api("/ping", { address: "198.51.100.7", count: "2", interval: "5ms" });
    expect(far.records).toEqual([
      { seq: "0", host: "198.51.100.7", status: "timeout", sent: "1", received: "0", "packet-loss": "100" },
      { seq: "1", host: "198.51.100.7", status: "timeout", sent: "2", received: "0", "packet-loss": "100" },
    ]);
  });

  it("refuses bad arguments with RouterOS's texts", async () => {
    const { trapOf } = await session();
    expect(await trapOf("/ping", {})).toBe("missing value(s) of argument(s) address");
    expect(await trapOf("/ping", { address: "nowhere" })).toBe("invalid value for argument address");
    expect(await trapOf("/ping", { address: "127.0.0.1", count: "x" })).toBe(
      "invalid value for argument count",
    );
    expect(await trapOf("/interface/monitor-traffic", { interface: "ether9", once: "" })).toBe(
      "input does not match any value of interface",
    );
    expect(await trapOf("/tool/torch", {})).toBe("missing value(s) of argument(s) interface");
  });

  it("once and duration end monitor-traffic, ethernet monitor and torch", async () => {
    const { api } = await session();
    const traffic = await api("/interface/monitor-traffic", { interface: "ether1", once: "" });
    expect(traffic.records).toEqual([expect.objectContaining({ name: "ether1", "rx-bits-per-second": "0" })]);
    const link = await api("/interface/ethernet/monitor", { numbers: "ether1,ether2", once: "" });
    expect(link.records).toEqual([
      expect.objectContaining({ name: "ether1", status: "link-ok", rate: "1Gbps" }),
    ]);
    const torch = await api("/tool/torch", { interface: "ether1", duration: "30ms", interval: "10ms" });
    expect(torch.records).toHaveLength(3);
    expect(torch.records[0]).toEqual({ tx: "0", rx: "0", "tx-packets": "0", "rx-packets": "0" });
  });

  it("streams until /cancel, which ends it with !trap category 2 interrupted, for every streaming command", async () => {
    const { client, device } = await session();
    const streams: [string, Record<string, string>][] = [
      ["/interface/listen", {}],
      ["/interface/monitor-traffic", { interface: "ether1" }],
      ["/tool/torch", { interface: "ether1" }],
      ["/ping", { address: "198.51.100.7" }],
    ];
    for (const [command, attributes] of streams) {
      const controller = new AbortController();
      const running = client.command(
        { command, attributes },
        { signal: controller.signal, onRecord: () => {} },
      );
      const seen = await waitFor(() => device.seen.find((entry) => entry.path === command));
      controller.abort(new Error("enough"));
      await expect(running).rejects.toThrow("enough");
      await new Promise<void>((resolve) =>
        seen.signal.aborted ? resolve() : seen.signal.addEventListener("abort", () => resolve()),
      );
      expect(seen.signal.reason).toMatchObject({ message: "interrupted", category: 2 });
    }
    expect((await client.command({ command: "/system/identity/print" })).records).toEqual([
      { name: "test-router" },
    ]);
  });
});

/** Polls `read` on each turn of the event loop until it gives a value (the server registers commands as they arrive). */
async function waitFor<T>(read: () => T | undefined): Promise<T> {
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("!trap categories", () => {
  it("names the category RouterOS gives: 0 for a missing item or command, 1 for an argument's value", async () => {
    const { api } = await session();
    const categoryOf = (command: string, attributes: Record<string, string> = {}) =>
      api(command, attributes).then(
        () => expect.fail(`${command} should have been refused`),
        (error: unknown) => {
          const trap = error as RouterApiTrapError;
          return { message: trap.routerMessage, category: trap.category };
        },
      );
    expect(await categoryOf("/ip/adress/print")).toEqual({
      message: "no such command or directory (adress)",
      category: 0,
    });
    expect(await categoryOf("/ip/address/frobnicate")).toEqual({
      message: "no such command or directory (frobnicate)",
      category: 0,
    });
    expect(await categoryOf("/ip/address/set", { ".id": "*99", comment: "x" })).toMatchObject({
      category: 0,
    });
    expect(await categoryOf("/ip/address/add", { address: "192.168.88.1/24", interface: "asdf" })).toEqual({
      message: "input does not match any value of interface",
      category: 1,
    });
    expect(await categoryOf("/ip/pool/add", { name: "guest" })).toEqual({
      message: "missing value(s) of argument(s) ranges",
      category: 1,
    });
  });

  it("gives no category where RouterOS gives none: a failure of the command itself", async () => {
    const { api } = await session();
    await api("/ip/address/add", { address: "10.1.0.1/24", interface: "ether2" });
    const trap = await api("/ip/address/add", { address: "10.1.0.1/24", interface: "ether2" }).catch(
      (error: unknown) => error as RouterApiTrapError,
    );
    expect(trap).toMatchObject({ routerMessage: "failure: already have such address" });
    expect((trap as RouterApiTrapError).category).toBeUndefined();
  });
});
