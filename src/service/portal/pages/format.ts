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
