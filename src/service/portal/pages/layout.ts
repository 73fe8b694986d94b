import { SCRIPT_ASSET, STYLE_ASSET } from "../assets.js";
import { type Html, type HtmlValue, html } from "../escape.js";

export interface LayoutOptions {
  readonly title: string;
  /** The signed-in view: a header with the scope and a sign-out form carrying this CSRF token. */
  readonly session?: { readonly csrf: string; readonly scope: string };
  /** Server-sent events that keep the page's `#live` region fresh. */
  readonly eventsUrl?: string;
  readonly body: HtmlValue;
}

export function layout(options: LayoutOptions): Html {
  const { session } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · routerjobs</title>
<link rel="stylesheet" href="${STYLE_ASSET.path}">
${options.eventsUrl ? html`<script src="${SCRIPT_ASSET.path}" defer></script>` : ""}
</head>
<body>
<header>
<a href="/portal"><strong>routerjobs</strong> portal</a>
${
  session &&
  html`<nav class="sections" aria-label="Sections"><a href="/portal">Routers</a><a href="/portal/deploys">Deploys</a></nav>
<span>${session.scope}</span>
<form method="post" action="/portal/sign-out"><input type="hidden" name="csrf" value="${session.csrf}"><button type="submit">Sign out</button></form>`
}
</header>
<main${options.eventsUrl ? html` data-events="${options.eventsUrl}"` : ""}>
${options.body}
</main>
</body>
</html>
`;
}

/** A page that only says something: not found, refused, too many attempts. */
export function messagePage(title: string, message: string, session?: LayoutOptions["session"]): Html {
  return layout({
    title,
    ...(session ? { session } : {}),
    body: html`<h1>${title}</h1><p>${message}</p><p><a href="/portal">Back to the routers</a></p>`,
  });
}
