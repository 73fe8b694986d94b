import { stripMarker } from "../../../contract/attempt-marker.js";
import { formatTimestamp } from "../../../contract/time.js";
import type { Deploy, DeployJob, WaveLane } from "../deploys.js";
import { type Html, html } from "../escape.js";
import { duration, statusBadge, teamLabel, timeCell } from "./format.js";
import { type LayoutOptions, layout } from "./layout.js";

/**
 * The deploy timeline: routers by wave over time, one row per router of a wave, its jobs as bars on one time
 * axis for the whole deploy, failures marked. Inline SVG drawn with attributes and the stylesheet's classes
 * only: no script and no inline style, so it renders under the portal's CSP as it is, and the same without
 * JavaScript. The bars stretch with the column (`preserveAspectRatio="none"`), so a phone shows the same
 * picture narrower; what the picture says is also in the rows' text (router, result, times).
 */

/** The SVG's own units across: the axis from the deploy's first submission to its last end. */
const AXIS = 1000;
/** A bar is never thinner than this, so an instant job still shows. */
const MIN_BAR = 6;
const MARK = 8;

const clock = (at: Date): string => `${formatTimestamp(at).slice(11, 19)}`;
const dateAndClock = (at: Date): string => `${formatTimestamp(at).slice(0, 19).replace("T", " ")} UTC`;

function waveName(lane: WaveLane): string {
  return lane.wave ? `Wave ${lane.wave.wave} of ${lane.wave.waves}` : "Outside a rollout";
}

function scale(deploy: Deploy, now: Date): (at: Date) => number {
  const start = deploy.start.getTime();
  const span = Math.max(1000, (deploy.end ?? now).getTime() - start);
  return (at) => Math.min(AXIS, Math.max(0, ((at.getTime() - start) / span) * AXIS));
}

const fixed = (value: number): string => value.toFixed(1);

function bar(job: DeployJob, x: (at: Date) => number, now: Date): Html {
  const from = x(job.created_at);
  const to = Math.max(x(job.ended_at ?? now), from + MIN_BAR);
  const width = Math.min(to, AXIS) - from;
  const label = `#${job.seq_id} ${stripMarker(job.description)}: ${job.status}${job.error ? ` (${job.error})` : ""}`;
  const mark =
    job.status === "failed"
      ? html`<rect class="fail-mark" x="${fixed(Math.min(AXIS - MARK, Math.max(0, from + width - MARK / 2)))}" y="0" width="${MARK}" height="24"></rect>`
      : "";
  return html`<a href="/portal/jobs/${job.id}"><rect class="bar bar-${job.status}" x="${fixed(from)}" y="5" width="${fixed(Math.max(width, 1))}" height="14"><title>${label}</title></rect>${mark}</a>`;
}

/** What a router's row of a lane ended with: its failed job if one failed, else its last job. */
function result(jobs: readonly DeployJob[]): Html {
  const failed = jobs.find((job) => job.status === "failed");
  const shown = failed ?? (jobs.at(-1) as DeployJob);
  return html`<a href="/portal/jobs/${shown.id}">${statusBadge(shown.status)}${failed ? html` <span class="fail-text">✕</span>` : ""} #${shown.seq_id}</a>${failed?.error ? html`<br><small class="router-error">${failed.error}</small>` : ""}`;
}

function lane(item: WaveLane, deploy: Deploy, now: Date): Html {
  const x = scale(deploy, now);
  const spanFrom = x(item.start);
  const spanTo = Math.max(x(item.end ?? now), spanFrom + MIN_BAR);
  const rows = item.routers.map(
    (router) => html`<tr>
<th scope="row"><a href="/portal/routers/${router.id}">${router.name}</a></th>
<td class="track-cell"><svg class="track" viewBox="0 0 ${AXIS} 24" preserveAspectRatio="none" role="img" aria-label="${router.name}: ${router.jobs.length} job${router.jobs.length === 1 ? "" : "s"}, ${router.jobs.map((job) => job.status).join(", ")}"><rect class="wave-span" x="${fixed(spanFrom)}" y="0" width="${fixed(Math.min(spanTo, AXIS) - spanFrom)}" height="24"></rect>${router.jobs.map((job) => bar(job, x, now))}</svg></td>
<td>${result(router.jobs)}</td>
</tr>`,
  );
  const failed = item.routers.filter((router) => router.jobs.some((job) => job.status === "failed")).length;
  return html`<tbody>
<tr class="lane"><th colspan="3" scope="rowgroup">${waveName(item)} · ${item.routers.length} router${item.routers.length === 1 ? "" : "s"} · ${clock(item.start)}–${item.end ? clock(item.end) : "running"}${failed > 0 ? html` · <span class="fail-text">${failed} failed</span>` : ""}</th></tr>
${rows}
</tbody>`;
}

function outcome(deploy: Deploy): Html {
  if (deploy.failed > 0) return html`<span class="status status-failed">failed</span>`;
  if (deploy.end === null) return html`<span class="status status-running">running</span>`;
  return html`<span class="status status-completed">completed</span>`;
}

/** The timeline of one deploy: its waves in order, each a group of router rows on the deploy's time axis. */
export function timeline(deploy: Deploy, now: Date): Html {
  const end = deploy.end ?? now;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="Deploy timeline">
<table class="deploy">
<caption class="none">Routers by wave over time, from the first job submitted to the last one's end. A bar is a job (from submitted to finished), a red mark a failure; each links to its job.</caption>
<colgroup><col class="router-column"><col><col class="result-column"></colgroup>
<thead><tr><th scope="col">Router</th><th scope="col"><span class="axis"><span>${clock(deploy.start)}</span><span>← ${duration(deploy.start, end)} →</span><span>${deploy.end ? clock(deploy.end) : "now"}</span></span></th><th scope="col">Result</th></tr></thead>
${deploy.lanes.map((item) => lane(item, deploy, now))}
</table>
</div>`;
}

function summary(deploy: Deploy): Html {
  const waves = deploy.lanes.filter((item) => item.wave !== undefined).length;
  return html`${deploy.routers} router${deploy.routers === 1 ? "" : "s"}, ${waves > 0 ? `${waves} wave${waves === 1 ? "" : "s"}` : "no rollout"}, ${deploy.jobs.length} job${deploy.jobs.length === 1 ? "" : "s"}`;
}

interface PageOptions {
  readonly session: NonNullable<LayoutOptions["session"]>;
  readonly allTeams: boolean;
  readonly now: Date;
  /** The routers list's fingerprint when the page was read: its events stream starts from it. */
  readonly fingerprint: string;
}

/** `/portal/deploys`: the newest deploy's timeline, then every deploy of the window, newest first. */
export function deploysPage(deploys: readonly Deploy[], options: PageOptions): Html {
  const newest = deploys[0];
  const rows = deploys.map(
    (deploy) => html`<tr>
<td><a href="/portal/deploys/${deploy.id}">${dateAndClock(deploy.start)}</a><br>${timeCell(deploy.start, options.now)}</td>
${options.allTeams && html`<td>${teamLabel(deploy.teamId, deploy.teamName)}</td>`}
<td>${outcome(deploy)}</td>
<td>${summary(deploy)}</td>
<td>${deploy.failed > 0 ? html`<a class="fail-text" href="/portal/deploys/${deploy.id}">${deploy.failed} failed</a>` : "0"}</td>
<td>${duration(deploy.start, deploy.end ?? options.now)}</td>
</tr>`,
  );
  return layout({
    title: "Deploys",
    session: options.session,
    eventsUrl: `/portal/events?since=${options.fingerprint}`,
    body: html`<h1>Deploys</h1>
<div id="live">
${
  newest
    ? html`<h2>Newest: <a href="/portal/deploys/${newest.id}">${dateAndClock(newest.start)}</a> ${outcome(newest)}</h2>
<p>${summary(newest)}.</p>
${timeline(newest, options.now)}
<h2>All deploys of the last 7 days</h2>
<div class="scroll" tabindex="0" role="region" aria-label="Deploys">
<table>
<thead><tr><th scope="col">Started</th>${options.allTeams && html`<th scope="col">Team</th>`}<th scope="col">Result</th><th scope="col">Size</th><th scope="col">Failed</th><th scope="col">Duration</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`
    : html`<p class="none">No deploys in the last 7 days. A deploy is what <code>routerjobs deploy</code> or <code>apply</code> submitted; jobs submitted by hand are on their routers' pages.</p>`
}
</div>`,
  });
}

/** `/portal/deploys/{id}`: one deploy's timeline and facts. */
export function deployPage(deploy: Deploy, options: PageOptions): Html {
  return layout({
    title: `Deploy of ${dateAndClock(deploy.start)}`,
    session: options.session,
    eventsUrl: `/portal/events?since=${options.fingerprint}`,
    body: html`<p><a href="/portal/deploys">Deploys</a> ›</p>
<h1>Deploy of ${dateAndClock(deploy.start)}</h1>
<div id="live">
<dl class="facts">
<dt>Result</dt><dd>${outcome(deploy)}</dd>
${options.allTeams && html`<dt>Team</dt><dd>${teamLabel(deploy.teamId, deploy.teamName)}</dd>`}
<dt>Size</dt><dd>${summary(deploy)}</dd>
<dt>Failed</dt><dd>${deploy.failed}</dd>
<dt>Duration</dt><dd>${duration(deploy.start, deploy.end ?? options.now)}${deploy.end ? "" : " so far"}</dd>
</dl>
${timeline(deploy, options.now)}
</div>`,
  });
}
