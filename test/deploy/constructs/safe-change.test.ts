/** `safeChange` on the constructs: the job arms its revert before the script, and apply learns the deadline. */
import { describe, expect, it } from "vitest";
import { parseApplyJob, RouterConfig, RouterScript } from "../../../src/deploy/constructs/index.js";
import { provisioners, ROUTER_A, resourceAt, synth } from "./support.js";

const SCRIPT = "/ip firewall filter add chain=input action=drop protocol=tcp dst-port=23";

function jobOf(text: string, id: string) {
  const [create] = provisioners(resourceAt(text, id));
  return parseApplyJob(create?.environment.ROUTERJOBS_JOB ?? "");
}

describe("safeChange", () => {
  it("arms a revert before the script and carries the deadline to apply", () => {
    // GIVEN a script with safeChange WHEN it is synthesized
    const text = synth(
      (stack) =>
        new RouterScript(stack, "fw", {
          routerId: ROUTER_A,
          script: SCRIPT,
          safeChange: { confirmWithin: "2m" },
        }),
    );
    const job = jobOf(text, "fw");
    // THEN the script saves its own backup and arms the task first, and the job says how to disarm it
    const tag = job.safe_change?.tag ?? "";
    expect(tag).toMatch(/^[0-9a-f]{12}$/);
    expect(job.safe_change).toEqual({ tag, confirm_within_ms: 120_000 });
    const lines = job.script.split("\n");
    expect(lines[1]).toBe(`/system backup save name=routerjobs-safe-${tag} dont-encrypt=yes`);
    expect(lines[2]).toContain(
      `interval=120s on-event="/system backup load name=routerjobs-safe-${tag}.backup"`,
    );
    expect(lines.at(-1)).toBe(SCRIPT);
  });

  it("is off by default, and a RouterConfig passes it to every section", () => {
    const plain = jobOf(
      synth((stack) => new RouterScript(stack, "fw", { routerId: ROUTER_A, script: SCRIPT })),
      "fw",
    );
    expect(plain.safe_change).toBeUndefined();
    expect(plain.script).toBe(SCRIPT);
    const text = synth(
      (stack) =>
        new RouterConfig(stack, "edge", {
          routerId: ROUTER_A,
          safeChange: { confirmWithin: "90s" },
          sections: [{ name: "fw", script: SCRIPT }],
        }),
    );
    expect(text).toContain("routerjobs-safe-");
    expect(text).toContain('"confirm_within_ms\\":90000');
  });

  it("refuses a deadline outside 10s to 1h, naming the prop", () => {
    for (const confirmWithin of ["5s", "2h", "soon"])
      expect(() =>
        synth(
          (stack) =>
            new RouterScript(stack, "fw", {
              routerId: ROUTER_A,
              script: SCRIPT,
              safeChange: { confirmWithin },
            }),
        ),
      ).toThrow(
        new RegExp(
          `safeChange\\.confirmWithin must be a duration from 10s to 1h, like 2m \\(got "${confirmWithin}"\\)`,
        ),
      );
  });
});
