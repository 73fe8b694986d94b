/**
 * Over random rule lists and orders: the first rule that matches the service's connection decides, and a cut
 * names that rule by its place in the chain. The oracle below reads each matcher for the one packet by hand.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkChange, type ServicePath } from "../../../../src/routeros/simulator/reachability/index.js";
import { freshRouter, run } from "../helpers.js";

const PATH: ServicePath = {
  direction: "inbound",
  source: "10.0.0.5",
  destination: "10.0.0.1",
  protocol: "tcp",
  port: 8729,
};

interface Rule {
  readonly action: "accept" | "drop";
  readonly src?: readonly [text: string, matches: boolean];
  readonly port?: readonly [text: string, matches: boolean];
  readonly protocol?: readonly [text: string, matches: boolean];
}

const rule: fc.Arbitrary<Rule> = fc.record(
  {
    action: fc.constantFrom("accept" as const, "drop" as const),
    src: fc.constantFrom(
      ["10.0.0.5", true] as const,
      ["10.0.0.0/24", true] as const,
      ["10.9.0.0/16", false] as const,
      ["!10.0.0.5", false] as const,
      ["!10.9.0.0/16", true] as const,
      ["10.0.0.1-10.0.0.9", true] as const,
    ),
    port: fc.constantFrom(
      ["8729", true] as const,
      ["22", false] as const,
      ["8000-9000", true] as const,
      ["!8729", false] as const,
    ),
    protocol: fc.constantFrom(["tcp", true] as const, ["udp", false] as const),
  },
  { requiredKeys: ["action"] },
);

function line(entry: Rule): string {
  const parts = [`chain=input action=${entry.action}`];
  if (entry.protocol || entry.port) parts.push(`protocol=${entry.protocol?.[0] ?? "tcp"}`);
  if (entry.src) parts.push(`src-address=${entry.src[0]}`);
  if (entry.port) parts.push(`dst-port=${entry.port[0]}`);
  return `/ip firewall filter add ${parts.join(" ")}`;
}

const matches = (entry: Rule) =>
  (entry.src?.[1] ?? true) && (entry.port?.[1] ?? true) && (entry.protocol?.[1] ?? true);

describe("rule order", () => {
  it("the first matching rule decides, and a cut names it", async () => {
    const base = freshRouter("edge-1");
    await run(base, "/ip address add address=10.0.0.1/24 interface=ether1");
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 6 }), async (rules) => {
        // GIVEN a router the service reaches WHEN the rules are added to chain input in this order
        const after = freshRouter("edge-1");
        after.restore(base.snapshot());
        if (rules.length > 0) await run(after, rules.map(line).join("\n"));
        const verdict = checkChange(base, after, PATH);
        // THEN it is cut exactly when the first matching rule drops, and that rule is named
        const first = rules.findIndex(matches);
        const decider = first < 0 ? undefined : rules[first];
        if (decider?.action === "drop") {
          expect(verdict.status).toBe("cut");
          if (verdict.status === "cut")
            expect(verdict.reason).toBe(
              `rule ${first + 1} of chain input drops 10.0.0.5 to tcp/8729 (/ip firewall filter number ${first})`,
            );
        } else expect(verdict.status).toBe("kept");
      }),
      { numRuns: 60 },
    );
  });
});
