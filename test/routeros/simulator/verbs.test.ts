import { describe, expect, it } from "vitest";
import { RouterOsError } from "../../../src/routeros/errors.js";
import { call, fail, freshRouter, run } from "./helpers.js";

describe("generic verbs (execute level, below the language)", () => {
  it("add returns ids in RouterOS hex, never reusing a removed one", async () => {
    const router = freshRouter();
    const ids: unknown[] = [];
    for (let i = 1; i <= 11; i++) {
      ids.push(
        (await router.execute(call("ip pool", "add", { name: `p${i}`, ranges: `10.0.${i}.1-10.0.${i}.9` })))
          .value,
      );
    }
    expect(ids.slice(8)).toEqual(["*9", "*A", "*B"]);
    await router.execute(call("ip pool", "remove", {}, ["*B"]));
    expect(
      (await router.execute(call("ip pool", "add", { name: "again", ranges: "10.9.0.1-10.9.0.2" }))).value,
    ).toBe("*C");
  });

  it("names the missing required arguments", () => {
    const router = freshRouter();
    expect(() => router.execute(call("interface vlan", "add", { name: "v" }))).toThrow(
      new RouterOsError("missing value(s) of argument(s) vlan-id, interface"),
    );
  });

  it("rejects unknown arguments and verbs with the router's texts", () => {
    const router = freshRouter();
    expect(() => router.execute(call("ip address", "add", { adress: "10.0.0.1/24" }))).toThrow(
      "expected end of command",
    );
    expect(() => router.execute(call("ip service", "add", { name: "x" }))).toThrow("bad command name add");
    expect(() => router.execute(call("ip adress", "print"))).toThrow("bad command name adress");
  });

  it("refuses a misspelled print flag instead of ignoring it, and the script stops there", async () => {
    const router = freshRouter();
    expect(await fail(router, "/system identity set name=before\n/ip address print detial")).toBe(
      "expected end of command (line 2 column 1)",
    );
    expect(await run(router, "/ip address print detail")).toBeDefined();
  });

  it("find honours name=value filters and the where predicate", async () => {
    const router = freshRouter();
    const found = await router.execute(call("interface", "find", { type: "ether" }));
    expect(found.value).toEqual(["*1", "*2", "*3", "*4", "*5"]);
    const where = await router.execute({
      ...call("interface", "find"),
      where: (item) => item.name === "ether3" || item.name === "ether5",
    });
    expect(where.value).toEqual(["*3", "*5"]);
  });
});

describe("generic verbs through scripts", () => {
  it("addresses items by id, by name and by number from the last print", async () => {
    const router = freshRouter();
    await run(router, "/interface print");
    await run(
      router,
      "/interface set 1 comment=second\n/interface set ether3 comment=third\n/interface set *4 comment=fourth",
    );
    expect(await run(router, ":put [/interface get ether2 comment]")).toBe("second");
    expect(await run(router, ":put [/interface get [find comment=third] name]")).toBe("ether3");
    expect(await run(router, ":put [/interface get ether4 comment]")).toBe("fourth");
    await run(router, "/interface set ether5 mtu=9000");
    expect(await run(router, ":put [/interface ethernet get ether5 mtu]")).toBe("9000");
    expect(await fail(router, "/interface set ether9 comment=x")).toBe("no such item (line 1 column 1)");
  });

  it("prints with where, proplist, count-only, terse and detail", async () => {
    const router = freshRouter();
    await run(
      router,
      "/ip address add address=10.0.0.1/24 interface=ether2\n/ip address add address=10.0.1.1/24 interface=ether3 comment=lab",
    );
    expect(await run(router, "/ip address print count-only where interface=ether3")).toBe("1");
    expect(await run(router, ":put [/ip address print count-only]")).toBe("2\n2");
    const table = await run(router, "/ip address print");
    expect(table.split("\n")).toEqual([
      "Columns: ADDRESS, NETWORK, INTERFACE",
      "# ADDRESS      NETWORK   INTERFACE",
      "0 10.0.0.1/24  10.0.0.0  ether2",
      ";;; lab",
      "1 10.0.1.1/24  10.0.1.0  ether3",
    ]);
    expect(await run(router, "/ip address print terse where interface=ether3")).toBe(
      " 0    comment=lab address=10.0.1.1/24 network=10.0.1.0 interface=ether3 actual-interface=ether3",
    );
    const detail = await run(router, "/ip address print detail proplist=address");
    expect(detail.split("\n").slice(1)).toEqual([
      " 0    address=10.0.0.1/24",
      "",
      " 1    ;;; lab",
      "      address=10.0.1.1/24",
    ]);
    expect(await run(router, "/ip address print count-only from=*2")).toBe("1");
    expect(await fail(router, "/ip address print proplist=bogus")).toMatch(
      /^input does not match any value of proplist/,
    );
  });

  it("enable, disable, comment and unset change one property each", async () => {
    const router = freshRouter();
    await run(router, "/ip pool add name=q ranges=10.0.1.1-10.0.1.9");
    await run(router, "/ip pool add name=p ranges=10.0.0.1-10.0.0.9 comment=x next-pool=q");
    await run(router, "/ip route add gateway=10.0.0.254 disabled=yes");
    expect(await run(router, ":put [/ip route get [find gateway=10.0.0.254] disabled]")).toBe("true");
    await run(router, "/ip route enable [find gateway=10.0.0.254]");
    expect(await run(router, ":put [/ip route get [find gateway=10.0.0.254] disabled]")).toBe("false");
    await run(router, "/ip pool comment p comment=changed");
    expect(await run(router, ":put [/ip pool get p comment]")).toBe("changed");
    await run(router, "/ip pool unset p next-pool");
    expect(await run(router, ":put [/ip pool get p next-pool]")).toBe("");
    await run(router, "/ip firewall filter add chain=input comment=rule log-prefix=x");
    await run(router, "/ip firewall filter print");
    await run(router, "/ip firewall filter unset 0 comment");
    await run(router, "/ip firewall filter unset 0 value-name=log-prefix");
    expect(await run(router, "/ip firewall filter print terse")).toBe(" 0    chain=input action=accept");
    expect(await fail(router, "/ip firewall filter unset 0 chain")).toMatch(
      /^input does not match any value of value-name/,
    );
  });

  it("get returns typed values and rejects unknown properties", async () => {
    const router = freshRouter();
    expect(await run(router, ":put ([/interface ethernet get ether1 mtu] + 1)")).toBe("1501");
    expect(await run(router, ":put [:typeof [/ip service get telnet disabled]]")).toBe("bool");
    expect(await fail(router, ":put [/interface get ether1 colour]")).toMatch(
      /^input does not match any value of value-name/,
    );
  });

  it("get without a value name gives the whole item as an array with keys, typed", async () => {
    const router = freshRouter();
    await run(router, '/system script add name=backup source=":log info backup"');
    const script = [
      ":local s [/system script get [find name=backup]]",
      ':put ($s->"name")',
      ':put ($s->"source")',
      ':put [:typeof ($s->".id")]',
      ':put [:typeof ([/interface ethernet get ether1]->"mtu")]',
    ].join("\n");
    expect(await run(router, script)).toBe("backup\n:log info backup\nstr\nnum");
    expect(await fail(router, ":put [/system script get [find name=missing]]")).toMatch(/^no such item/);
  });

  it("/ip cloud shows no address or name while DDNS is off, and /ip dns cache flush runs", async () => {
    const router = freshRouter();
    expect(
      await run(
        router,
        ':put ("[" . [/ip cloud get public-address] . "][" . [/ip cloud get dns-name] . "]")',
      ),
    ).toBe("[][]");
    expect(await fail(router, "/ip cloud set public-address=203.0.113.1")).toMatch(
      /^expected end of command/,
    );
    expect(await run(router, "/ip dns cache flush\n:put flushed")).toBe("flushed");
  });

  it("find takes comparisons written as arguments: name~, mtu>, mtu>=, and leaves other words alone", async () => {
    const router = freshRouter();
    await run(router, "/interface ethernet set ether2 mtu=1400");
    expect(await run(router, ':put [/interface find name~"^ether[12]"]')).toBe("*1;*2");
    expect(await run(router, ":put [/interface ethernet find mtu<1500]")).toBe("*2");
    expect(await run(router, ':put [/interface ethernet find mtu>=1500 name~"ether[12]"]')).toBe("*1");
    expect(await run(router, ':local wan "ether1"\n:put [/interface find name~$wan]')).toBe("*1");
    expect(await fail(router, ':put [/interface find colour~"red"]')).toMatch(/^expected end of command/);
  });

  it("remove refuses built-in and dynamic items", async () => {
    const router = freshRouter();
    expect(await fail(router, "/interface ethernet remove ether1")).toMatch(/^bad command name remove/);
    expect(await fail(router, "/interface remove ether1")).toMatch(/^failure: can not remove built-in item/);
    await run(router, "/ip address add address=10.0.0.1/24 interface=ether2");
    expect(await fail(router, "/ip route remove [find dynamic]")).toMatch(
      /^failure: can not remove dynamic item/,
    );
  });
});
