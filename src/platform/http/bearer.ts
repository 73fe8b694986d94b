/**
 * The credential of an `Authorization: Bearer <token>` header, or undefined when there is none. The scheme is
 * case-insensitive (RFC 9110, 11.1), so `bearer x` is as good as `Bearer x`; one token, spaces around allowed.
 */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer +(\S+) *$/i.exec(header)?.[1];
}
