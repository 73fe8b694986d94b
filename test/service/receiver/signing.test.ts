import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJobs, newJob, notificationFor, SIGNING_SECRET, startTestReceiver, tempDir } from "./helpers.js";

const ROTATED_OUT = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
const UNKNOWN = `whsec_${Buffer.alloc(32, 3).toString("base64")}`;

// Real HTTPS and PGlite; the sender signs as a Standard Webhooks sender does.
describe("receiver with a signing secret", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await startTestReceiver(dir.path, { signingSecrets: [SIGNING_SECRET, ROTATED_OUT] });
  });
  afterAll(async () => {
    await receiver?.close();
    await dir?.remove();
  });

  it("stores a correctly signed notification, with either configured secret", async () => {
    for (const secret of [SIGNING_SECRET, ROTATED_OUT]) {
      const job = newJob();
      const { body, headers } = receiver.sender.signed(notificationFor(job, "completed"), undefined, secret);
      expect((await receiver.sender.post(body, { headers })).status).toBe(200);
      expect((await getJobs(receiver, `idempotency_key=${job.idempotency_key}`)).status).toBe(200);
    }
  });

  it("refuses a signature by an unknown secret, and stores nothing", async () => {
    const job = newJob();
    const { body, headers } = receiver.sender.signed(notificationFor(job, "completed"), undefined, UNKNOWN);
    const answer = await receiver.sender.post(body, { headers });
    expect(answer).toMatchObject({ status: 401, body: { error: { message: /does not match/ } } });
    expect((await getJobs(receiver, `idempotency_key=${job.idempotency_key}`)).status).toBe(404);
  });

  it("refuses a body changed after signing, even by one byte of whitespace", async () => {
    const { body, headers } = receiver.sender.signed(notificationFor(newJob(), "completed"));
    expect((await receiver.sender.post(`${body} `, { headers })).status).toBe(401);
    const tampered = body.replace('"completed"', '"failed"');
    expect((await receiver.sender.post(tampered, { headers })).status).toBe(401);
  });

  it("refuses a replay whose timestamp is older than 5 minutes, and one from the future", async () => {
    const payload = notificationFor(newJob(), "completed");
    const nowS = Math.floor(Date.now() / 1000);
    // A minute past the 5-minute window each way: a loaded machine takes seconds between signing and checking.
    const old = receiver.sender.signed(payload, nowS - 360);
    expect(await receiver.sender.post(old.body, { headers: old.headers })).toMatchObject({
      status: 401,
      body: { error: { message: /more than 5 minutes in the past/ } },
    });
    const future = receiver.sender.signed(payload, nowS + 360);
    expect((await receiver.sender.post(future.body, { headers: future.headers })).status).toBe(401);
  });

  it("refuses a notification without the signature headers, even with the right path secret", async () => {
    const signed = receiver.sender.signed(notificationFor(newJob(), "completed"));
    expect(await receiver.sender.post(signed.body)).toMatchObject({
      status: 401,
      body: { error: { message: /webhook-id, webhook-timestamp and webhook-signature/ } },
    });
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const headers = Object.fromEntries(Object.entries(signed.headers).filter(([key]) => key !== name));
      expect((await receiver.sender.post(signed.body, { headers })).status).toBe(401);
    }
  });

  it("checks the signature before the JSON: a signed malformed body is a 400, an unsigned one a 401", async () => {
    const unsigned = await receiver.sender.post("{not json");
    expect(unsigned.status).toBe(401);
    const nowS = Math.floor(Date.now() / 1000);
    const { headers } = receiver.sender.signed({}, nowS);
    const { webhookSignature: signWebhook } = await import("../../../src/contract/signing-secret.js");
    const { parseSigningSecret } = await import("../../../src/contract/signing-secret.js");
    const signature = signWebhook(
      parseSigningSecret(SIGNING_SECRET),
      headers["webhook-id"],
      nowS,
      Buffer.from("{not json"),
    );
    const signedBad = await receiver.sender.post("{not json", {
      headers: { ...headers, "webhook-signature": signature },
    });
    expect(signedBad.status).toBe(400);
  });
});
