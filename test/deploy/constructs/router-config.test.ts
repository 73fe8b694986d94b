import { describe, expect, it } from "vitest";
import { RouterConfig, RouterScript, type RouterSection } from "../../../src/deploy/constructs/index.js";
import { provisioners, ROUTER_A, resourceAt, resourcesOf, synth } from "./support.js";

const SECTIONS: readonly RouterSection[] = [
  { name: "identity", script: '/system identity set name="edge-1"' },
  { name: "dns", script: "/ip dns set servers=1.1.1.1,9.9.9.9" },
  { name: "ntp", script: "/system ntp client set enabled=yes" },
];

function jobKeys(sections: readonly RouterSection[]): Record<string, string | undefined> {
  const text = synth((stack) => new RouterConfig(stack, "edge-1", { routerId: ROUTER_A, sections }));
  return Object.fromEntries(
    sections.map((section) => [
      section.name,
      resourceAt(text, `edge-1/${section.name}`).triggers_replace?.job_key,
    ]),
  );
}

describe("RouterConfig", () => {
  it("chains the sections of one router in declaration order", () => {
    // GIVEN three sections
    // WHEN synthesized
    const text = synth(
      (stack) => new RouterConfig(stack, "edge-1", { routerId: ROUTER_A, sections: SECTIONS }),
    );
    // THEN the first depends on nothing and each later one on the section before it
    const name = (section: string) =>
      Object.keys(resourcesOf(text)).find((key) => key.startsWith(`edge-1_${section}_`));
    expect(resourceAt(text, "edge-1/identity").depends_on).toBeUndefined();
    expect(resourceAt(text, "edge-1/dns").depends_on).toEqual([`terraform_data.${name("identity")}`]);
    expect(resourceAt(text, "edge-1/ntp").depends_on).toEqual([`terraform_data.${name("dns")}`]);
  });

  it("changes the job key of the changed section only", () => {
    // GIVEN the same sections twice, the second time with a changed dns script
    const before = jobKeys(SECTIONS);
    const after = jobKeys(
      SECTIONS.map((s) => (s.name === "dns" ? { ...s, script: "/ip dns set servers=8.8.8.8" } : s)),
    );
    // THEN only dns gets a new key (and so only dns is replaced and re-run)
    expect(after.identity).toBe(before.identity);
    expect(after.ntp).toBe(before.ntp);
    expect(after.dns).not.toBe(before.dns);
  });

  it("re-runs a job when a flag or the notify URL changes, not when the wait settings change", () => {
    const base = jobKeys(SECTIONS).dns;
    const withSection = (change: Partial<RouterSection>) =>
      jobKeys(SECTIONS.map((s) => (s.name === "dns" ? { ...s, ...change } : s))).dns;
    // THEN what the service receives is part of the key
    expect(withSection({ makeBackup: false })).not.toBe(base);
    expect(withSection({ expressExecute: true })).not.toBe(base);
    expect(withSection({ needsAcknowledgement: false })).not.toBe(base);
    expect(withSection({ notifyUrl: "https://hooks.example.net/x" })).not.toBe(base);
    expect(withSection({ description: "dns" })).not.toBe(base);
    // AND how `routerjobs apply` waits is not
    expect(withSection({ timeout: "1h", waitFor: "poll", cli: "npx routerjobs" })).toBe(base);
  });

  it("applies its options to every section, and a section's own option wins", () => {
    // GIVEN config-wide options, one section overriding makeBackup and one writing it undefined
    let config: RouterConfig | undefined;
    synth((stack) => {
      config = new RouterConfig(stack, "edge-1", {
        routerId: ROUTER_A,
        makeBackup: false,
        expressExecute: true,
        sections: [
          { name: "a", script: "/ip dns set servers=1.1.1.1", makeBackup: true },
          { name: "b", script: "/ip dns set servers=1.1.1.1", makeBackup: undefined },
        ],
      });
    });
    // THEN
    const [a, b] = config?.sections ?? [];
    expect(a?.job).toMatchObject({ make_backup: true, express_execute: true, router_id: ROUTER_A });
    expect(b?.job).toMatchObject({ make_backup: false, express_execute: true });
  });

  it("adds sections later in order, and waits for a dependency before the first section", () => {
    // GIVEN a config that depends on another script and gets a section through addSection
    const text = synth((stack) => {
      const bootstrap = new RouterScript(stack, "bootstrap", {
        routerId: ROUTER_A,
        script: "/system ntp client set enabled=yes",
      });
      const config = new RouterConfig(stack, "edge-1", {
        routerId: ROUTER_A,
        dependsOn: [bootstrap],
        sections: SECTIONS.slice(0, 1),
      });
      config.addSection({ name: "late", script: "/ip dns set servers=1.1.1.1" });
      // a RouterConfig can itself be depended on: that waits for its last section
      new RouterScript(stack, "after", {
        routerId: ROUTER_A,
        script: "/ip dns cache flush",
        dependsOn: [config],
      });
    });
    // THEN
    expect(resourceAt(text, "edge-1/identity").depends_on?.[0]).toMatch(/^terraform_data\.bootstrap_job_/);
    expect(resourceAt(text, "edge-1/late").depends_on?.[0]).toMatch(/^terraform_data\.edge-1_identity_job_/);
    expect(resourceAt(text, "after").depends_on?.[0]).toMatch(/^terraform_data\.edge-1_late_job_/);
  });

  it("refuses to be a dependsOn target without sections", () => {
    expect(() =>
      synth((stack) => {
        const empty = new RouterConfig(stack, "empty", { routerId: ROUTER_A });
        new RouterScript(stack, "after", {
          routerId: ROUTER_A,
          script: "/ip dns cache flush",
          dependsOn: [empty],
        });
      }),
    ).toThrow("office/empty: sections must not be empty in a RouterConfig that something depends on");
  });

  it("names each job by its section path", () => {
    const text = synth(
      (stack) => new RouterConfig(stack, "edge-1", { routerId: ROUTER_A, sections: SECTIONS }),
    );
    const job = JSON.parse(
      provisioners(resourceAt(text, "edge-1/dns"))[0]?.environment.ROUTERJOBS_JOB ?? "{}",
    );
    expect(job).toMatchObject({ resource: "office/edge-1/dns", description: "office/edge-1/dns" });
  });

  it("synthesizes to the same JSON as before (snapshot)", () => {
    const text = synth(
      (stack) => new RouterConfig(stack, "edge-1", { routerId: ROUTER_A, sections: SECTIONS }),
    );
    expect(JSON.parse(text)).toMatchSnapshot();
  });
});
