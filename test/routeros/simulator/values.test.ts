import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatIp, networkPrefix, parseIp, parsePrefix } from "../../../src/routeros/runtime/ipv4.js";
import { formatRouterOsTime, readRouterOsTime } from "../../../src/routeros/runtime/values.js";
import { isIpRangeOrPrefix, isPortList, parseMac } from "../../../src/routeros/simulator/values.js";

// The simulator reads times with the language's one reader.
const parseDuration = readRouterOsTime;

describe("value parsers", () => {
  it("reads IPv4 addresses and rejects what RouterOS rejects", () => {
    expect(parseIp("192.168.88.1")).toBe(0xc0a85801);
    for (const bad of ["256.1.1.1", "1.2.3", "1.2.3.4.5", "a.b.c.d", "", "1.2.3.-1"])
      expect(parseIp(bad)).toBeUndefined();
  });

  it("formats every 32-bit address back to the same text", () => {
    fc.assert(fc.property(fc.ipV4(), (ip) => formatIp(parseIp(ip) ?? -1) === ip));
  });

  it("reads prefixes and computes their network", () => {
    const prefix = parsePrefix("10.1.2.3/20");
    expect(prefix).toEqual({ address: parseIp("10.1.2.3"), length: 20 });
    expect(prefix && networkPrefix(prefix)).toBe("10.1.0.0/20");
    expect(parsePrefix("10.0.0.1")).toEqual({ address: parseIp("10.0.0.1"), length: 32 });
    expect(parsePrefix("10.0.0.1/33")).toBeUndefined();
    expect(parsePrefix("10.0.0.1/2/3")).toBeUndefined();
  });

  it("accepts ordered ranges and prefixes only", () => {
    expect(isIpRangeOrPrefix("10.0.0.10-10.0.0.20")).toBe(true);
    expect(isIpRangeOrPrefix("10.0.0.20-10.0.0.10")).toBe(false);
    expect(isIpRangeOrPrefix("10.0.0.0/8")).toBe(true);
  });

  it("reads durations in every RouterOS spelling and prints the compact form", () => {
    expect(parseDuration("1d2h")).toBe(93_600_000);
    expect(parseDuration("00:10:00")).toBe(600_000);
    expect(parseDuration("1d00:00:30")).toBe(86_430_000);
    expect(parseDuration("90")).toBe(90_000);
    expect(parseDuration("10x")).toBeUndefined();
    expect(parseDuration("")).toBeUndefined();
    // What the language's :delay took before the two readers were one: fractions of a second on a clock.
    expect(parseDuration("00:00:01.5")).toBe(1500);
    expect(parseDuration("1m30s")).toBe(90_000);
    expect(formatRouterOsTime(0)).toBe("0s");
    expect(formatRouterOsTime(5_400_000)).toBe("1h30m");
  });

  it("round-trips any duration through its printed form", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 12 }),
        (ms) => parseDuration(formatRouterOsTime(ms)) === ms,
      ),
    );
  });

  it("checks port lists and MAC addresses", () => {
    expect(isPortList("22,80,8000-8080")).toBe(true);
    expect(isPortList("70000")).toBe(false);
    expect(isPortList("90-80")).toBe(false);
    expect(parseMac("aa:bb:cc:dd:ee:ff")).toBe("AA:BB:CC:DD:EE:FF");
    expect(parseMac("aa:bb:cc:dd:ee")).toBeUndefined();
  });
});
