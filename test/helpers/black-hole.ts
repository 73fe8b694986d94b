import { createServer, type Server, type Socket } from "node:net";

/**
 * A TCP server that accepts and never answers: a notification receiver that holds every attempt to the end.
 * What it is sent is read and dropped, so that it hears a connection its peer gave up on end (`ended`): unread,
 * the peer's close would wait behind the bytes it sent.
 */
export async function blackHole(): Promise<{
  server: Server;
  port: number;
  accepted: () => number;
  ended: () => number;
}> {
  let accepted = 0;
  let ended = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.resume();
    socket.on("close", () => {
      ended++;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  }) as Server["close"];
  return {
    server,
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    ended: () => ended,
  };
}

/** A loopback port nothing listens on: a receiver that is down, every connection refused at once. */
export async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
