import { createServer, type Server, Socket } from "node:net";

/** A loopback TCP relay that counts the bytes the service sends back (TLS passes through untouched). */
export async function byteCounter(
  target: URL,
): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    upstream.connect(Number(target.port), target.hostname);
    upstream.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    received: () => received,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
