import { createRequire } from "node:module";

/** The package version; src/ and dist/ sit at the same depth, so the relative path holds for both. */
export const VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version;

export const USER_AGENT = `routerjobs/${VERSION} node/${process.versions.node}`;
