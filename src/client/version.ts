import { createRequire } from "node:module";
import { dirname } from "node:path";

const packageJson = createRequire(import.meta.url).resolve("../../package.json");

/** The package version; src/ and dist/ sit at the same depth, so the relative path holds for both. */
export const VERSION: string = (createRequire(import.meta.url)(packageJson) as { version: string }).version;

/** The installed package's folder (its package.json's), for programs that run its other entries. */
export const PACKAGE_ROOT: string = dirname(packageJson);

export const USER_AGENT = `routerjobs/${VERSION} node/${process.versions.node}`;
