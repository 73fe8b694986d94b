import { generate } from "selfsigned";

/** A fresh self-signed certificate for loopback; the certificate is its own CA, so `cert` is what to trust. */
export async function loopbackCertificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 7, ip: "127.0.0.1" },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
