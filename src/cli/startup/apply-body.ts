/**
 * What `routerjobs apply` runs once apply-main.ts has set V8's flags: built as a CommonJS bundle of its own
 * (dist/bundle/apply-body.cjs, scripts/bundle-cli.mjs) so that apply-main.ts can run it with V8's code cached
 * on disk (code-cache.ts). zod's setting comes first: each object schema reads it when it is made.
 */
import "./zod-jitless.js";

export { runApply } from "../apply-run.js";
export { reportError } from "../report-error.js";
