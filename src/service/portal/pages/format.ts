import type { KnownJobStatus } from "../../../contract/job.js";
import { formatTimestamp } from "../../../contract/time.js";
import { type Html, html } from "../escape.js";

/** How long ago (or from now), in the largest unit that fits: "12 s ago", "3 min ago", "in 2 h". */
export function relativeTime(at: Date, now: Date): string {
  const seconds = Math.round((now.getTime() - at.getTime()) / 1000);
  const magnitude = Math.abs(seconds);
  const text =
    magnitude < 60
      ? `${magnitude} s`
      : magnitude < 3600
        ? `${Math.floor(magnitude / 60)} min`
        : magnitude < 86_400
          ? `${Math.floor(magnitude / 3600)} h`
          : `${Math.floor(magnitude / 86_400)} d`;
  return seconds >= 0 ? `${text} ago` : `in ${text}`;
}

/** A time as people read it (relative) with the exact instant beside it, machine-readable in `datetime`. */
export function timeCell(at: Date | null, now: Date): Html {
  if (!at) return html`<span class="none">—</span>`;
  const exact = formatTimestamp(at);
  return html`<time datetime="${exact}" title="${exact}">${relativeTime(at, now)}</time><br><small class="exact">${exact.slice(0, 19).replace("T", " ")} UTC</small>`;
}

export function duration(from: Date | null, to: Date | null): string {
  if (!from || !to) return "—";
  const ms = Math.max(0, to.getTime() - from.getTime());
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The status as a word with a colour: the word alone carries the meaning. */
export function statusBadge(status: KnownJobStatus | string): Html {
  return html`<span class="status status-${status}">${status}</span>`;
}

export const yesNo = (value: boolean): string => (value ? "yes" : "no");

/**
 * A team as people call it: its name, or (for a team given none by the seed or the admin API) the first part of
 * its id, which is enough to tell the teams of one service apart.
 */
export const teamLabel = (id: string, name: string | null | undefined): string =>
  name ?? `${id.slice(0, 8)}…`;

const HIDDEN = "•••";

/**
 * A URL with only its origin shown: a receiver's `notify_url` carries its secret in the path (and a query may
 * carry one too), so the path and query show as a mask. Anything that is not a URL shows as the mask alone.
 */
export function maskedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname === "/" || parsed.pathname === "" ? "/" : `/${HIDDEN}`;
    return `${parsed.origin}${path}${parsed.search ? `?${HIDDEN}` : ""}`;
  } catch {
    return HIDDEN;
  }
}

/** A text that may quote the URL (a delivery's last error), with the URL and its path masked as `maskedUrl`. */
export function withoutUrlSecret(text: string, url: string): string {
  let result = text.replaceAll(url, maskedUrl(url));
  try {
    const { pathname, search } = new URL(url);
    const hidden = `${pathname}${search}`;
    if (hidden.length > 1) result = result.replaceAll(hidden, `/${HIDDEN}`);
    if (pathname.length > 1) result = result.replaceAll(pathname, `/${HIDDEN}`);
  } catch {
    // Not a URL: only the whole of it was replaced.
  }
  return result;
}
