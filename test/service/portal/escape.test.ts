import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml, Html, html } from "../../../src/service/portal/escape.js";

/** What a browser makes of escaped text: the five entities back to their characters, nothing else. */
const decodeEntities = (text: string) =>
  text
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");

describe("escapeHtml and the html tag", () => {
  it("leaves no character that can open a tag, end an attribute or start an entity", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        // Every & left begins one of our entities.
        expect(escaped.replace(/&(amp|lt|gt|quot|#39);/g, "")).not.toContain("&");
        expect(decodeEntities(escaped)).toBe(text);
      }),
    );
  });

  it("escapes every interpolated value, arrays included, and keeps Html as it is", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { maxLength: 4 }), (text, list) => {
        const out = html`<p title="${text}">${list}</p>`.text;
        expect(out).toBe(`<p title="${escapeHtml(text)}">${list.map(escapeHtml).join("")}</p>`);
      }),
    );
    expect(html`<td>${new Html("<b>x</b>")}</td>`.text).toBe("<td><b>x</b></td>");
    expect(html`${null}${undefined}${false}${0}`.text).toBe("0");
  });

  it("renders the classic payload as text", () => {
    expect(html`<td>${"<img src=x onerror=alert(1)>"}</td>`.text).toBe(
      "<td>&lt;img src=x onerror=alert(1)&gt;</td>",
    );
  });
});
