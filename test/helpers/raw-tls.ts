import { connect } from "node:tls";

/** One raw HTTP/1.1 exchange over TLS, for requests no well-behaved client would send. */
export function rawTlsRequest(url: string, ca: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca, servername: "localhost" }, () =>
      socket.end(text),
    );
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.on("error", (error) => (answer ? resolve(answer) : reject(error)));
  });
}
