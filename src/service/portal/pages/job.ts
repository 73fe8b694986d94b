import { formatTimestamp } from "../../../contract/time.js";
import type { JobRow } from "../../jobs/rows.js";
import { type Html, html } from "../escape.js";
import type { Delivery } from "../queries.js";
import { duration, maskedUrl, statusBadge, timeCell, withoutUrlSecret, yesNo } from "./format.js";
import { type LayoutOptions, layout } from "./layout.js";

/** The line a router's error names (`... (line 3 column 5)`, `... (line 3)`), if any. */
export function failingLine(error: string | null): number | undefined {
  const match = error ? /\(line (\d+)/.exec(error) : null;
  return match ? Number(match[1]) : undefined;
}

function scriptListing(job: JobRow): Html {
  const failing = job.status === "failed" ? failingLine(job.error) : undefined;
  const lines = job.script
    .split(/\r?\n/)
    .map((line, index) =>
      index + 1 === failing
        ? html`<li class="failing" id="failing-line"><code>${line}</code><span class="router-error" role="note">⚠ line ${failing}: ${job.error}</span></li>`
        : html`<li><code>${line}</code></li>`,
    );
  return html`<ol class="script" aria-label="Script">${lines}</ol>`;
}

function timeline(job: JobRow, now: Date): Html {
  const steps: [string, Date | null][] = [
    ["submitted", job.created_at],
    ["loaded", job.loaded_at],
    ["running", job.started_at],
    ["completed", job.completed_at],
    ["failed", job.failed_at],
    ["deleted", job.deleted_at],
  ];
  const items = steps
    .filter(([, at]) => at !== null)
    .map(([step, at]) => html`<li>${statusBadge(step)} ${timeCell(at, now)}</li>`);
  return html`<ol class="timeline">${items}</ol>`;
}

function deliveryTable(rows: readonly Delivery[], now: Date): Html {
  if (rows.length === 0) return html`<p class="none">No notifications (the job has no notify_url).</p>`;
  const body = rows.map(
    (row) =>
      html`<tr><td>${row.state}</td><td>${row.attempts}</td><td>${
        row.delivered_at
          ? html`delivered ${timeCell(row.delivered_at, now)}`
          : row.abandoned_at
            ? html`abandoned ${timeCell(row.abandoned_at, now)}`
            : html`next try ${timeCell(row.next_attempt_at, now)}`
      }</td><td>${row.last_error ? withoutUrlSecret(row.last_error, row.url) : "—"}</td></tr>`,
  );
  // The receiver's URL holds its path secret: the origin says where notifications go, the rest is masked.
  return html`<p>To <code>${maskedUrl(rows[0]?.url ?? "")}</code> <small class="exact">(path hidden: it holds the receiver's secret)</small></p><div class="scroll" tabindex="0" role="region" aria-label="Notifications"><table>
<thead><tr><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Result</th><th scope="col">Last error</th></tr></thead>
<tbody>${body}</tbody></table></div>`;
}

export function jobPage(options: {
  job: JobRow & { router_name: string };
  deliveries: readonly Delivery[];
  session: NonNullable<LayoutOptions["session"]>;
  now: Date;
  /** The job's fingerprint when the page was read: its events stream starts from it. */
  fingerprint: string;
}): Html {
  const { job, now } = options;
  const failing = job.status === "failed" ? failingLine(job.error) : undefined;
  return layout({
    title: job.description,
    session: options.session,
    eventsUrl: `/portal/jobs/${job.id}/events?since=${options.fingerprint}`,
    body: html`<p><a href="/portal">Routers</a> › <a href="/portal/routers/${job.router_id}">${job.router_name}</a> ›</p>
<h1>${job.description}</h1>
<div id="live">
<dl class="facts">
<dt>Status</dt><dd>${statusBadge(job.status)}</dd>
<dt>Job</dt><dd>#${job.seq_id} <small class="exact">${job.id}</small></dd>
<dt>Submitted</dt><dd><time datetime="${formatTimestamp(job.created_at)}">${formatTimestamp(job.created_at)}</time></dd>
<dt>Duration</dt><dd>${duration(job.started_at, job.completed_at ?? job.failed_at)}</dd>
<dt>Express</dt><dd>${yesNo(job.express_execute)}</dd>
<dt>Needs ack</dt><dd>${yesNo(job.needs_acknowledgement)}</dd>
<dt>Backup</dt><dd>${
      job.backup_name
        ? html`${job.backup_name} (<a href="/portal/jobs/${job.id}/backup">download its export</a>)`
        : job.make_backup
          ? "asked, not taken yet"
          : "no"
    }</dd>
${job.error && html`<dt>Router error</dt><dd class="router-error">${job.error}${failing ? html` (<a href="#failing-line">line ${failing}</a>)` : ""}</dd>`}
</dl>
<h2>Lifecycle</h2>
${timeline(job, now)}
<h2>Notifications</h2>
${deliveryTable(options.deliveries, now)}
<h2>Script</h2>
${scriptListing(job)}
</div>`,
  });
}
