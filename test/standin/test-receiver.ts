import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { loopbackCertificate } from "./tls.js";

/** A notification receiver for the tests: HTTPS on loopback, answering 500 to the first `failFirst` posts. */
export async function startReceiver(failFirst = 0) {
  const tls = await loopbackCertificate();
  const received: Record<string, unknown>[] = [];
  let attempts = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      attempts++;
      if (attempts <= failFirst) return void res.writeHead(500).end();
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(204).end();
      for (const waiter of waiters.filter((candidate) => received.length >= candidate.count))
        waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    ca: tls.cert,
    received,
    /** Resolves once `count` notifications have been accepted (event-driven, no polling). */
    until: (count: number) =>
      received.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
