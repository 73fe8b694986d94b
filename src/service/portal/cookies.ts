/** The few cookie rules the portal needs, so that no cookie library is needed. */

/** `__Host-`: the browser accepts it only Secure, from this host, for path / (no subdomain can plant one). */
export const SESSION_COOKIE = "__Host-rj_session";
/** Double-submit token of the sign-in form, before a session exists. */
export const SIGN_IN_CSRF_COOKIE = "__Host-rj_signin";

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** HttpOnly (no script reads it), Secure, SameSite=Strict (no other site's page sends it). */
export function cookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
}

export const clearCookie = (name: string): string => cookie(name, "", 0);
