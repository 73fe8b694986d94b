/**
 * The portal's only script, served as a static file (the CSP allows no inline script). It keeps a page fresh:
 * one EventSource per page on the URL in `data-events`; on each `change` it fetches the same page again over
 * the same session and swaps the `#live` region. Without JavaScript the page is complete, only not live.
 * Plain ES2017 in a string: it runs in the browser, not in Node, and needs no build step of its own.
 */
export const CLIENT_SCRIPT = `"use strict";
(function () {
  var main = document.querySelector("[data-events]");
  if (!main || !window.EventSource) return;
  var source = new EventSource(main.getAttribute("data-events"));
  var refreshing = false, again = false;
  function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    fetch(location.href, { credentials: "same-origin", headers: { accept: "text/html" } })
      .then(function (response) {
        if (response.redirected || !response.ok) { source.close(); location.reload(); return null; }
        return response.text();
      })
      .then(function (text) {
        if (text === null) return;
        var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("live");
        var current = document.getElementById("live");
        if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      })
      .catch(function () {})
      .then(function () {
        refreshing = false;
        if (again) { again = false; refresh(); }
      });
  }
  source.addEventListener("change", refresh);
  source.addEventListener("end", function () { source.close(); });
  window.addEventListener("pagehide", function () { source.close(); });
})();
`;
