import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError } from "../../src/client/index.js";
import { generateLocalTls, type TlsMaterial } from "../../src/platform/tls/certificates.js";
import { scratchDir } from "../helpers/scratch.js";
import { makeClient } from "./helpers/make-client.js";
import { ROUTER_ID, type StandIn, startStandIn } from "./helpers/stand-in-service.js";

let tls: TlsMaterial;
let service: StandIn;

beforeAll(async () => {
  tls = await generateLocalTls();
  service = await startStandIn({ tls });
});
afterAll(async () => {
  await service.close();
});

describe("TLS with a private CA", () => {
  it("trusts a service whose certificate the given CA signed (ca and caFile)", async () => {
    const withCa = makeClient(service.url, { ca: tls.ca });
    await expect(withCa.listJobs(ROUTER_ID)).resolves.toEqual(expect.any(Array));
    const caFile = join(scratchDir("rj-ca-"), "ca.pem");
    writeFileSync(caFile, tls.ca);
    const withCaFile = makeClient(service.url, { caFile });
    await expect(withCaFile.execute(ROUTER_ID, "/system/identity/print")).resolves.toHaveLength(1);
    await Promise.all([withCa.close(), withCaFile.close()]);
  });

  it("refuses an untrusted certificate before sending, and does not retry it", async () => {
    const untrusting = makeClient(service.url, { retry: { maxAttempts: 5 } });
    const before = service.requests.length;
    const error = (await untrusting
      .submitJob(ROUTER_ID, { description: "d", script: "s" })
      .catch((e: unknown) => e)) as NetworkError;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.requestSent).toBe(false);
    expect(error.causeCode).toMatch(/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/);
    expect(service.requests.length).toBe(before);
    await untrusting.close();
  });
});
