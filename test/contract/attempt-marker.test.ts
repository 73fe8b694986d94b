import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  markDescription,
  markerText,
  parseMarker,
  parseWave,
  stripMarker,
  tagOf,
} from "../../src/contract/attempt-marker.js";
import { DESCRIPTION_MAX_CHARS } from "../../src/contract/limits.js";

const marker = {
  resourceTag: tagOf("office/edge-1/dns"),
  definitionTag: tagOf("k".repeat(64)),
  instanceTag: tagOf("i-1"),
  attempt: 3,
};

describe("the attempt marker at the end of a job's description", () => {
  it("reads back what it wrote, and leaves the description a person wrote readable", () => {
    const text = markDescription("dns servers", marker);
    expect(text).toBe(`dns servers [${markerText(marker)}]`);
    expect(parseMarker(text)).toEqual(marker);
    expect(stripMarker(text)).toBe("dns servers");
  });

  it("is none for a job routerjobs did not submit", () => {
    expect(parseMarker("set by hand")).toBeUndefined();
    expect(parseMarker("look [rj:aaaa-bbbb-cccc-0]")).toBeUndefined();
    expect(parseMarker("[rj:aaaa-bbbb-cccc-1] at the start")).toBeUndefined();
  });

  it("keeps every description within the spec's 100 characters, shortening it with an ellipsis", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 100 }),
        fc.integer({ min: 1, max: 999_999 }),
        (description, attempt) => {
          const text = markDescription(description, { ...marker, attempt });
          expect([...text].length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
          expect(parseMarker(text)).toEqual({ ...marker, attempt });
          const kept = stripMarker(text);
          if ([...description].length + [...text].length - [...kept].length <= DESCRIPTION_MAX_CHARS)
            expect(kept).toBe(description);
          else expect(kept.endsWith("…")).toBe(true);
        },
      ),
    );
  });

  it("carries a rollout job's wave before the marker, and leaves the marker's text as it was", () => {
    const text = markDescription("dns servers", marker, { wave: 2, waves: 3 });
    expect(text).toBe(`dns servers (wave 2/3) [${markerText(marker)}]`);
    expect(parseMarker(text)).toEqual(marker);
    expect(parseWave(text)).toEqual({ wave: 2, waves: 3 });
    expect(parseWave(markDescription("dns servers", marker))).toBeUndefined();
    // Only right before a marker: a person's own "(wave 1/2)" elsewhere is not a wave.
    expect(parseWave("dns (wave 1/2) by hand")).toBeUndefined();
    expect(parseWave(`dns (wave 3/2) [${markerText(marker)}]`)).toBeUndefined();
  });

  it("keeps a waved description within the 100 characters too", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 100 }),
        fc.integer({ min: 1, max: 9999 }),
        (description, waves) => {
          const text = markDescription(description, marker, { wave: waves, waves });
          expect([...text].length).toBeLessThanOrEqual(DESCRIPTION_MAX_CHARS);
          expect(parseWave(text)).toEqual({ wave: waves, waves });
          expect(parseMarker(text)).toEqual(marker);
        },
      ),
    );
  });

  it("tags are four base32 characters that differ for different inputs", () => {
    expect(tagOf("a")).toMatch(/^[a-z2-7]{4}$/);
    expect(new Set(Array.from({ length: 50 }, (_, i) => tagOf(`office/edge-${i}`))).size).toBeGreaterThan(45);
  });
});
