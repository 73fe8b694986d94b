import { JOB_STATUSES } from "../../../contract/job.js";
import type { JobListRow } from "../../jobs/rows.js";
import { type Html, html } from "../escape.js";
import type { PortalRouter } from "../queries.js";
import { duration, statusBadge, timeCell, yesNo } from "./format.js";
import { failingLine } from "./job.js";
import { type LayoutOptions, layout } from "./layout.js";

export interface LogFilters {
  readonly status?: string;
  readonly text?: string;
}

function pageUrl(routerId: string, filters: LogFilters, cursor?: string): string {
  const query = new URLSearchParams();
  if (filters.status) query.set("status", filters.status);
  if (filters.text) query.set("q", filters.text);
  if (cursor) query.set("cursor", cursor);
  const search = query.toString();
  return `/portal/routers/${routerId}${search ? `?${search}` : ""}`;
}

const finishedAt = (job: JobListRow): Date | null => job.completed_at ?? job.failed_at ?? job.deleted_at;

function jobRow(job: JobListRow, now: Date): Html {
  return html`<tr>
<td>${job.seq_id}</td>
<td><a href="/portal/jobs/${job.id}">${job.description}</a></td>
<td>${statusBadge(job.status)}</td>
<td>${timeCell(job.created_at, now)}</td>
<td>${timeCell(job.started_at, now)}</td>
<td>${timeCell(finishedAt(job), now)}</td>
<td>${duration(job.started_at, job.completed_at ?? job.failed_at)}</td>
<td>${yesNo(job.express_execute)}</td>
<td>${yesNo(job.needs_acknowledgement)}</td>
<td>${job.backup_name ?? (job.make_backup ? "asked" : "no")}</td>
<td>${job.error ? html`<a class="router-error" href="/portal/jobs/${job.id}${failingLine(job.error) === undefined ? "" : "#failing-line"}">${job.error}</a>` : html`<span class="none">—</span>`}</td>
</tr>`;
}

/** A router's orchestration log: its jobs newest first, one page, filters and the link to the next page. */
export function routerLogPage(options: {
  router: PortalRouter;
  jobs: readonly JobListRow[];
  nextCursor: string | undefined;
  filters: LogFilters;
  firstPage: boolean;
  session: NonNullable<LayoutOptions["session"]>;
  now: Date;
  /** The router's fingerprint when the page was read: its events stream starts from it. */
  fingerprint: string;
}): Html {
  const { router, filters } = options;
  const statusOptions = JOB_STATUSES.map(
    (status) =>
      html`<option value="${status}"${filters.status === status ? html` selected` : ""}>${status}</option>`,
  );
  return layout({
    title: router.name,
    session: options.session,
    eventsUrl: `/portal/routers/${router.id}/events?since=${options.fingerprint}`,
    body: html`<p><a href="/portal">Routers</a> ›</p>
<h1>${router.name}</h1>
<form class="filters" method="get" action="/portal/routers/${router.id}" role="search">
<label>Status<select name="status"><option value="">any</option>${statusOptions}</select></label>
<label>Description contains<input type="search" name="q" value="${filters.text ?? ""}" maxlength="100"></label>
<button type="submit">Filter</button>
</form>
<div id="live">
<p>${router.device ? "Device" : "Simulated"} router, ${router.online ? html`<span class="online">online</span>` : html`<span class="offline">offline</span>`}. Its id, for the CLI: <code>${router.id}</code></p>
<div class="scroll" tabindex="0" role="region" aria-label="Jobs">
<table>
<caption class="none">Jobs, newest first${options.firstPage ? "" : " (older page)"}</caption>
<thead><tr><th scope="col">#</th><th scope="col">Description</th><th scope="col">Status</th><th scope="col">Submitted</th><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Duration</th><th scope="col">Express</th><th scope="col">Needs ack</th><th scope="col">Backup</th><th scope="col">Error</th></tr></thead>
<tbody>${options.jobs.length > 0 ? options.jobs.map((job) => jobRow(job, options.now)) : html`<tr><td colspan="11">No jobs${filters.status || filters.text ? " match these filters" : " yet"}.</td></tr>`}</tbody>
</table>
</div>
<nav class="pages" aria-label="Pages">
${!options.firstPage && html`<a href="${pageUrl(router.id, filters)}">Newest jobs</a>`}
${options.nextCursor && html`<a href="${pageUrl(router.id, filters, options.nextCursor)}" rel="next">Older jobs</a>`}
</nav>
</div>`,
  });
}
