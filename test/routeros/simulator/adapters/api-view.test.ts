import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitWords } from "../../../../src/contract/routers/sync-view.js";
import { apiCommand } from "../../../../src/routeros/simulator/adapters/api-view.js";
import { freshRouter, run } from "../helpers.js";

describe("API word splitting", () => {
  it("splits at whitespace before =, ? or . and keeps spaces inside values", () => {
    expect(splitWords("=.proplist=address,interface ?interface=ether1")).toEqual([
      "=.proplist=address,interface",
      "?interface=ether1",
    ]);
    expect(splitWords("=comment=office uplink port =name=x")).toEqual([
      "=comment=office uplink port",
      "=name=x",
    ]);
    expect(splitWords("  ")).toEqual([]);
  });

  it("splits any list of words whose values hold no blank followed by =, ? or . back into the same words", () => {
    const name = fc.stringMatching(/^[a-z][a-z-]{0,10}$/);
    const value = fc.string({ maxLength: 15 }).filter((v) => !/\s[=?.]/.test(v) && v.trim() === v);
    const word = fc.tuple(fc.constantFrom("=", "?"), name, value).map(([lead, n, v]) => `${lead}${n}=${v}`);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), (words) => {
        expect(splitWords(words.join(" "))).toEqual(words);
      }),
    );
  });

  it("lets =script= consume the rest of the string, newlines and = included", () => {
    expect(splitWords("=script=/ip address add address=10.0.0.1/24 interface=ether1\n:put ok")).toEqual([
      "=script=/ip address add address=10.0.0.1/24 interface=ether1\n:put ok",
    ]);
    expect(splitWords(".tag=7 =script=:put a ?b")).toEqual([".tag=7", "=script=:put a ?b"]);
  });
});

describe("API view", () => {
  it("answers /ip/arp/print with exactly the service's keys, all strings", async () => {
    const router = freshRouter();
    await run(router, "/ip address add address=10.5.0.1/24 interface=ether2");
    await run(router, "/ip arp add address=10.5.0.9 mac-address=02:00:00:00:00:09 interface=ether2");
    const records = await apiCommand(router, "/ip/arp/print");
    expect(records.length).toBeGreaterThan(1);
    for (const record of records) {
      expect(Object.keys(record)).toEqual([
        "id",
        "address",
        "mac_address",
        "interface",
        "published",
        "invalid",
        "DHCP",
        "dynamic",
        "complete",
        "disabled",
      ]);
      expect(record.id).toMatch(/^\*[0-9A-F]+$/);
      expect(Object.values(record).every((value) => typeof value === "string")).toBe(true);
    }
    const manual = records.find((record) => record.address === "10.5.0.9");
    expect(manual).toMatchObject({
      dynamic: "false",
      complete: "true",
      disabled: "false",
      published: "false",
    });
  });

  it("filters with ?queries and trims with .proplist", async () => {
    const router = freshRouter();
    await run(
      router,
      "/ip address add address=10.0.0.1/24 interface=ether1\n/ip address add address=10.0.1.1/24 interface=ether2",
    );
    expect(
      await apiCommand(router, "/ip/address/print", "=.proplist=address,interface ?interface=ether2"),
    ).toEqual([{ address: "10.0.1.1/24", interface: "ether2" }]);
    expect(await apiCommand(router, "/ip/address/print", "?disabled=no ?-comment")).toHaveLength(2);
    expect(await apiCommand(router, "/system/identity/print")).toEqual([{ name: "lab" }]);
  });

  it("adds, sets and removes with =name=value words", async () => {
    const router = freshRouter();
    const [added] = await apiCommand(router, "/ip/pool/add", "=name=office pool =ranges=10.0.0.10-10.0.0.20");
    expect(added).toEqual({ ret: "*1" });
    await apiCommand(router, "/ip/pool/set", "=.id=*1 =comment=guest network");
    expect(await apiCommand(router, "/ip/pool/print", "=.proplist=.id,name,comment")).toEqual([
      { id: "*1", name: "office pool", comment: "guest network" },
    ]);
    await apiCommand(router, "/ip/pool/remove", "=.id=*1");
    expect(await apiCommand(router, "/ip/pool/print")).toEqual([]);
  });

  it("runs /execute scripts and answers their output as ret", async () => {
    const router = freshRouter();
    const records = await apiCommand(
      router,
      "/execute",
      "=script=/ip address add address=10.9.0.1/24 interface=ether3\n:put done",
    );
    expect(records).toEqual([{ ret: "done" }]);
    await expect(
      apiCommand(router, "/execute", "=script=/ip address add address=10.9.0.1/24 interface=ether3"),
    ).rejects.toThrow("failure: already have such address (line 1 column 1)");
  });

  it("prints the log with keys id, time, topics, message", async () => {
    const router = freshRouter();
    await router.runScript("/ip pool add name=x");
    expect(await apiCommand(router, "/log/print", "?topics=script,error")).toEqual([
      {
        id: "*1",
        time: "2026-11-22 10:00:00",
        topics: "script,error",
        message: "missing value(s) of argument(s) ranges (line 1 column 1)",
      },
    ]);
  });

  it("rejects unknown commands and malformed words with the router's texts", async () => {
    const router = freshRouter();
    await expect(apiCommand(router, "/ip/adress/print")).rejects.toThrow(
      "no such command or directory (adress)",
    );
    await expect(apiCommand(router, "ip/address/print")).rejects.toThrow("no such command");
    await expect(apiCommand(router, "/ip/address/print", "interface=ether1")).rejects.toThrow(
      "unknown parameter interface=ether1",
    );
    await expect(apiCommand(router, "/ip/address/set", "=.id=*9 =comment=x")).rejects.toThrow("no such item");
    await expect(apiCommand(router, "/execute")).rejects.toThrow("missing value(s) of argument(s) script");
  });
});
