import { HttpError } from "../../http-error.js";

/** The spec routes' `router_not_found`, worded for a site: unknown and another team's answer the same. */
export const siteNotFound = (siteId: string) =>
  new HttpError(
    "router_not_found",
    `site ${siteId} does not exist or does not belong to the team of this API token`,
  );
