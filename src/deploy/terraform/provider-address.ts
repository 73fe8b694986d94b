/**
 * The Terraform provider's source address, shared by the provider's installer (which lays out the mirror) and
 * the constructs (which name it in `required_providers`). A hostname of its own, not `registry.terraform.io`:
 * Terraform then never asks the public registry for it (a name there could one day be somebody else's), and
 * `.local` is no public host.
 */
export const PROVIDER_HOST = "routerjobs.local";
export const PROVIDER_NAMESPACE = "routerjobs";
export const PROVIDER_TYPE = "routerjobs";
export const PROVIDER_SOURCE = `${PROVIDER_HOST}/${PROVIDER_NAMESPACE}/${PROVIDER_TYPE}`;
/** The provider's resource that runs one script as a job. */
export const SCRIPT_RESOURCE_TYPE = `${PROVIDER_TYPE}_script`;
