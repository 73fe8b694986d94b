/**
 * Terraform reads every string of `cdk.tf.json` as a template: `${...}` interpolates and `%{...}` is a
 * directive. A RouterOS script or a JSON job may contain either sequence literally, so each literal string
 * handed to Terraform doubles the introducer (`$${`, `%%{`), which Terraform turns back into the original.
 */
export function escapeTemplate(text: string): string {
  return text.replace(/([$%])\{/g, "$1$1{");
}
