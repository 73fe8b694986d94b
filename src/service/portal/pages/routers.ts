import { type Html, html } from "../escape.js";
import type { RouterSummary } from "../queries.js";
import { statusBadge, teamLabel, timeCell } from "./format.js";
import { type LayoutOptions, layout } from "./layout.js";

export function routersPage(
  routers: readonly RouterSummary[],
  options: {
    session: NonNullable<LayoutOptions["session"]>;
    allTeams: boolean;
    now: Date;
    /** The list's fingerprint when it was read: its events stream starts from it. */
    fingerprint: string;
  },
): Html {
  const rows = routers.map(
    (router) => html`<tr>
<td><a href="/portal/routers/${router.id}">${router.name}</a></td>
${options.allTeams && html`<td>${teamLabel(router.team_id, router.team_name)}</td>`}
<td>${router.device ? "device" : "simulated"}</td>
<td>${router.online ? html`<span class="online">online</span>` : html`<span class="offline">offline</span>`}</td>
<td>${
      router.last_job_id
        ? html`<a href="/portal/jobs/${router.last_job_id}">${router.last_description}</a><br>${statusBadge(router.last_status ?? "")} ${timeCell(router.last_created_at, options.now)}`
        : html`<span class="none">no jobs yet</span>`
    }</td>
<td>${
      router.failed_last_day > 0
        ? html`<a class="failed-count" href="/portal/routers/${router.id}?status=failed" aria-label="${router.failed_last_day} failed in 24 h on ${router.name}: its failed jobs">${router.failed_last_day}</a>`
        : "0"
    }</td>
</tr>`,
  );
  return layout({
    title: "Routers",
    session: options.session,
    eventsUrl: `/portal/events?since=${options.fingerprint}`,
    body: html`<h1>Routers</h1>
<div id="live" class="scroll" tabindex="0" role="region" aria-label="Routers">
<table>
<caption class="none">${routers.length} router${routers.length === 1 ? "" : "s"}</caption>
<thead><tr><th scope="col">Router</th>${options.allTeams && html`<th scope="col">Team</th>`}<th scope="col">Kind</th><th scope="col">State</th><th scope="col">Last job</th><th scope="col">Failed (24 h)</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`,
  });
}
