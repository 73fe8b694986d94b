import { type Html, html } from "../escape.js";
import { layout } from "./layout.js";

/** The sign-in form: the token goes in the POST body, never in a URL; `csrf` is the double-submit value. */
export function signInPage(csrf: string, message?: string): Html {
  return layout({
    title: "Sign in",
    body: html`<section class="signin">
<h1>Sign in</h1>
${message && html`<p class="message" role="alert">${message}</p>`}
<form method="post" action="/portal/sign-in" autocomplete="off">
<input type="hidden" name="csrf" value="${csrf}">
<label>API token<input type="password" name="token" required autocomplete="off" spellcheck="false"></label>
<p><button type="submit">Sign in</button></p>
</form>
<p><small>Your team's API token, as the CLI uses it. It opens a session of 8 hours and is not kept by the browser.</small></p>
</section>`,
  });
}

/**
 * A one-time sign-in link's page: the link only shows it; the button POSTs the code with the form's
 * double-submit CSRF value, and only that POST uses the code up.
 */
export function signInLinkPage(csrf: string, code: string): Html {
  return layout({
    title: "Sign in",
    body: html`<section class="signin">
<h1>Sign in with this link</h1>
<form method="post" action="/portal/sign-in/code" autocomplete="off">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="code" value="${code}">
<p><button type="submit">Sign in</button></p>
</form>
<p><small>The link is good once, for a few minutes, and opens a session of 8 hours in this browser. Continue only if you asked for it: someone else's link would sign you in to their team's view.</small></p>
</section>`,
  });
}
