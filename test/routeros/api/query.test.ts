import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileQuery } from "../../../src/routeros/api/query.js";
import { commandWords, parseSentence } from "../../../src/routeros/api/sentence.js";

const interfaces: Record<string, string>[] = [
  { name: "ether1", type: "ether", mtu: "1500", comment: "uplink" },
  { name: "vlan20", type: "vlan", mtu: "1500" },
  { name: "br0", type: "bridge", mtu: "9000" },
];
const names = (words: string[]) => interfaces.filter(compileQuery(words)).map((item) => item.name);

describe("query words (the manual's examples and rules)", () => {
  it("ORs two equalities with ?#|", () => {
    expect(names(["?type=ether", "?type=vlan", "?#|"])).toEqual(["ether1", "vlan20"]);
  });
  it("ANDs by default, and ?=name=x is ?name=x", () => {
    expect(names(["?=type=ether", "?mtu=1500"])).toEqual(["ether1"]);
  });
  it("tests presence, absence, order and negation", () => {
    expect(names(["?comment"])).toEqual(["ether1"]);
    expect(names(["?-comment"])).toEqual(["vlan20", "br0"]);
    expect(names(["?>mtu=1500"])).toEqual(["br0"]);
    expect(names(["?<mtu=9000"])).toEqual(["ether1", "vlan20"]);
    expect(names(["?type=ether", "?#!"])).toEqual(["vlan20", "br0"]);
  });
  it("?#N at the end of a word replaces the whole stack with value N", () => {
    // Stack after the words (top first): ether?, bridge?. "1" keeps the bridge test alone.
    expect(names(["?type=bridge", "?type=ether", "?#1"])).toEqual(["br0"]);
  });
  it("an empty query matches everything", () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.string()), (item) => compileQuery([])(item)));
  });
  it("refuses malformed words with the word in the message", () => {
    expect(() => compileQuery(["?#x"])).toThrow('bad query word "?#x"');
    expect(() => compileQuery(["?<mtu"])).toThrow('query word "?<mtu" needs =value');
    expect(() => compileQuery(["?"])).toThrow("bad query word");
  });
});

describe("sentence words", () => {
  it("round-trip attributes whose values hold '=', tags, proplist and queries", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), fc.string()),
        fc.stringMatching(/^[0-9a-z]{1,5}$/),
        (attributes, tag) => {
          const words = commandWords({
            command: "/ip/address/add",
            attributes,
            proplist: ["a", "b"],
            queries: ["?x=1"],
            tag,
          });
          const parsed = parseSentence(words.map((word) => Buffer.from(word)));
          expect(parsed.head).toBe("/ip/address/add");
          expect(parsed.tag).toBe(tag);
          expect(parsed.queries).toEqual(["?x=1"]);
          const { ".proplist": proplist, ...rest } = Object.fromEntries(parsed.attributes);
          expect(proplist).toBe("a,b");
          expect(rest).toEqual(attributes);
        },
      ),
    );
  });
  it("refuses a command without / and attribute names with =", () => {
    expect(() => commandWords({ command: "ip address print" })).toThrow(/a command starts with \//);
    expect(() => commandWords({ command: "/x", attributes: { "a=b": "c" } })).toThrow(/attribute name/);
  });
});
