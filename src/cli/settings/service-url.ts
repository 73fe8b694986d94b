/**
 * The service's URL as the CLI's flags and environment give it: zod's URL check, http or https only. A module of
 * its own, imported where it is needed: a dynamic `import("zod")` would keep all of zod in the bundle (a namespace
 * object that esbuild cannot shake), where `import * as z` keeps only the parts used.
 */
import * as z from "zod";

const SERVICE_URL = z.url({ protocol: /^https?$/ });

/** The URL as zod returns it, or undefined when it is not an http:// or https:// URL. */
export function parseServiceUrl(text: string): string | undefined {
  const url = SERVICE_URL.safeParse(text);
  return url.success ? url.data : undefined;
}
