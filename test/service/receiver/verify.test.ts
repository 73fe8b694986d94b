import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSigningSecret, webhookSignature as signWebhook } from "../../../src/contract/signing-secret.js";
import {
  matchesAnySecret,
  SIGNATURE_TOLERANCE_MS,
  verifyWebhook,
} from "../../../src/service/receiver/verify.js";

const KEY = parseSigningSecret(`whsec_${Buffer.alloc(32, 1).toString("base64")}`);
const OTHER_KEY = parseSigningSecret(`whsec_${Buffer.alloc(32, 2).toString("base64")}`);
const NOW_MS = 1_800_000_000_000;
const NOW_S = NOW_MS / 1000;
const body = Buffer.from('{"job_id":"a","status":"completed"}');

function headersFor(key: Buffer, payload: Uint8Array, timestamp = NOW_S, id = "msg_1") {
  return { id, timestamp: String(timestamp), signature: signWebhook(key, id, timestamp, payload) };
}

describe("verifyWebhook", () => {
  it("accepts a signature made with the configured key over the same bytes", () => {
    expect(verifyWebhook([KEY], headersFor(KEY, body), body, NOW_MS)).toEqual({ ok: true });
  });

  it("matches the Standard Webhooks reference vector", () => {
    // From the Standard Webhooks specification's test suite (standard-webhooks/libraries).
    const key = parseSigningSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    const payload = Buffer.from('{"test": 2432232314}');
    const signature = signWebhook(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, payload);
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("accepts when any of several signatures matches (sender rotating its secret)", () => {
    const good = headersFor(KEY, body);
    const other = signWebhook(OTHER_KEY, "msg_1", NOW_S, body);
    const headers = { ...good, signature: `${other} v1,bm90IGEgc2lnbmF0dXJl ${good.signature}` };
    expect(verifyWebhook([KEY], headers, body, NOW_MS).ok).toBe(true);
  });

  it("accepts a signature from any configured key (receiver rotating its secret)", () => {
    expect(verifyWebhook([OTHER_KEY, KEY], headersFor(KEY, body), body, NOW_MS).ok).toBe(true);
  });

  it("refuses a signature made with another key", () => {
    expect(verifyWebhook([KEY], headersFor(OTHER_KEY, body), body, NOW_MS)).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  it("refuses missing headers, a malformed timestamp and an unknown signature version", () => {
    const good = headersFor(KEY, body);
    for (const name of ["id", "timestamp", "signature"] as const) {
      expect(verifyWebhook([KEY], { ...good, [name]: undefined }, body, NOW_MS)).toEqual({
        ok: false,
        reason: "missing_headers",
      });
    }
    expect(verifyWebhook([KEY], { ...good, timestamp: "1.8e9" }, body, NOW_MS)).toMatchObject({
      reason: "malformed_timestamp",
    });
    const v2 = { ...good, signature: good.signature.replace(/^v1,/, "v2,") };
    expect(verifyWebhook([KEY], v2, body, NOW_MS)).toMatchObject({ reason: "signature_mismatch" });
  });

  it("enforces the 5 minute window on both sides, at its edges", () => {
    const edgeS = SIGNATURE_TOLERANCE_MS / 1000;
    const at = (timestamp: number) => verifyWebhook([KEY], headersFor(KEY, body, timestamp), body, NOW_MS);
    expect(at(NOW_S - edgeS).ok).toBe(true);
    expect(at(NOW_S + edgeS).ok).toBe(true);
    expect(at(NOW_S - edgeS - 1)).toEqual({ ok: false, reason: "timestamp_too_old" });
    expect(at(NOW_S + edgeS + 1)).toEqual({ ok: false, reason: "timestamp_in_future" });
  });

  it("never verifies a signature made over different bytes (property)", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 512 }),
        fc.uint8Array({ maxLength: 512 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        (signedBytes, sentBytes, id) => {
          fc.pre(!Buffer.from(signedBytes).equals(Buffer.from(sentBytes)));
          const headers = headersFor(KEY, signedBytes, NOW_S, id);
          return !verifyWebhook([KEY], headers, sentBytes, NOW_MS).ok;
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never verifies when the id or timestamp differs from what was signed (property)", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.integer({ min: -299, max: 299 }), (id, shift) => {
        fc.pre(id !== "msg_1" || shift !== 0);
        const signed = headersFor(KEY, body, NOW_S, "msg_1");
        const headers = { ...signed, id, timestamp: String(NOW_S + shift) };
        return !verifyWebhook([KEY], headers, body, NOW_MS).ok;
      }),
    );
  });
});

describe("parseSigningSecret", () => {
  it("refuses a secret without the whsec_ prefix, bad base64 or a short key, without echoing it", () => {
    for (const bad of [Buffer.alloc(32).toString("base64"), "whsec_not base64!", "whsec_c2hvcnQ="]) {
      expect(() => parseSigningSecret(bad)).toThrow(/whsec_ followed by the base64 of 24 to 64 random bytes/);
      try {
        parseSigningSecret(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain(bad);
      }
    }
  });
});

describe("matchesAnySecret", () => {
  it("matches only an identical secret, among several", () => {
    expect(matchesAnySecret("secret-b", ["secret-a", "secret-b"])).toBe(true);
    expect(matchesAnySecret("secret-", ["secret-a", "secret-b"])).toBe(false);
    expect(matchesAnySecret("secret-bb", ["secret-a", "secret-b"])).toBe(false);
    expect(matchesAnySecret("", [])).toBe(false);
  });
});
