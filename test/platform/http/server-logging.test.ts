import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactedUrl } from "../../../src/platform/http/server-logging.js";
import { TOKEN_A } from "../../service/harness.js";

const [TOKEN_ID, TEAM_ID, SECRET] = TOKEN_A.split(":") as [string, string, string];

describe("redactedUrl: what a request log may hold of a URL", () => {
  it("keeps only the token id of a token anywhere in the URL, its colons plain or percent-encoded", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(":", "%3A", "%3a"),
        fc.constantFrom(":", "%3A", "%3a"),
        fc.stringMatching(/^\/[a-z0-9/._-]{0,30}$/),
        fc.stringMatching(/^[a-z0-9/._=&-]{0,30}$/),
        fc.boolean(),
        (first, second, before, after, inQuery) => {
          const token = `${TOKEN_ID}${first}${TEAM_ID}${second}${SECRET}`;
          const url = inQuery ? `${before}?x=${token}&${after}` : `${before}/${token}/${after}`;
          const logged = redactedUrl(url);
          expect(logged).not.toContain(SECRET);
          expect(logged).toContain(`${TOKEN_ID}:***`);
        },
      ),
    );
  });

  it("replaces the value of a query parameter named like a credential, and nothing else", () => {
    expect(redactedUrl(`/api/routers/x/jobs?limit=50&token=${SECRET}&cursor=abc`)).toBe(
      "/api/routers/x/jobs?limit=50&token=***&cursor=abc",
    );
    for (const name of [
      "access_token",
      "Access-Token",
      "api_key",
      "apikey",
      "API%5FKEY",
      "password",
      "key",
    ]) {
      expect(redactedUrl(`/p?${name}=s3cret&a=1`)).toBe(`/p?${name}=***&a=1`);
    }
    expect(redactedUrl("/portal/routers/r?status=failed&q=token")).toBe(
      "/portal/routers/r?status=failed&q=token",
    );
    expect(redactedUrl("/healthz")).toBe("/healthz");
  });
});
