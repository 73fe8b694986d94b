import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { certificateFingerprint } from "../../../../src/routeros/api/transport.js";
import { keptDeviceCertificate } from "../../../../src/routeros/simulator/adapters/device-certificate.js";
import { scratchDir } from "../../../helpers/scratch.js";

describe("keptDeviceCertificate", () => {
  it("makes the certificate once, writes it 0600, and gives the same one back on the next start", async () => {
    const file = join(scratchDir("routerjobs-device-cert-"), "device.pem");
    const first = await keptDeviceCertificate(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await keptDeviceCertificate(file);
    expect(certificateFingerprint(again.cert)).toBe(certificateFingerprint(first.cert));
    expect(again.key.trim()).toBe(first.key.trim());
  });

  it("refuses a file without a certificate and key, naming it", async () => {
    const file = join(scratchDir("routerjobs-device-cert-"), "broken.pem");
    writeFileSync(file, "not a certificate\n");
    await expect(keptDeviceCertificate(file)).rejects.toThrow(
      `${file} holds no PEM certificate and private key`,
    );
  });
});
