/**
 * Whether the first bytes a client sent to the API port belong to another protocol: an HTTP request line (a
 * browser, curl or a REST client pointed at the API port) or a TLS ClientHello (an api-ssl client at the plain
 * port). Read as API words, both begin a long word the client never completes, so the session would wait for
 * bytes that never come until its login deadline. No API sentence begins so (a command word starts with `/`):
 * the server closes such a connection at once, with nothing sent.
 */
const httpRequestLine = /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|CONNECT|TRACE) /;

export function isForeignProtocol(first: Uint8Array): boolean {
  if (first.length >= 2 && first[0] === 0x16 && first[1] === 0x03) return true;
  return httpRequestLine.test(Buffer.from(first.subarray(0, 8)).toString("latin1"));
}
