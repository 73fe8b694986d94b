import { describe, expect, it } from "vitest";
import { HaltedBlocks } from "../../../src/deploy/reconcile/halted-blocks.js";

const A = "terraform_data.edge-a_dns_job_629280C6";
const B = "terraform_data.edge-a2_identity_job_5D1D75C9";
const applySaid = (address: string) =>
  `${address} (local-exec): routerjobs: interrupted; the next apply resumes waiting for the same job`;
/** Terraform's block under -no-color for a provisioner it stopped. */
const block = (address: string, summary = "execution halted", detail: string[] = []) => [
  `Error: ${summary}`,
  "",
  `  with ${address},`,
  `  on cdk.tf.json line 40, in resource "terraform_data" "${address.split(".")[1]}":`,
  "  40:       }",
  "",
  ...(detail.length > 0 ? [...detail, ""] : []),
];

/** What deploy prints of `lines`: the lines kept, with deploy's own lines where it wrote them. */
function printed(lines: readonly string[]): string[] {
  const out: string[] = [];
  const halted = new HaltedBlocks((line) => out.push(`routerjobs: ${line}`));
  for (const line of lines) if (!halted.drops(line)) out.push(line);
  return out.filter((line) => line !== "");
}

describe("HaltedBlocks", () => {
  it("keeps the apply's own line and drops Terraform's block for that resource", () => {
    expect(printed(["Stopping operation...", applySaid(A), ...block(A)])).toEqual([
      "Stopping operation...",
      applySaid(A),
    ]);
  });

  it("writes one line in place of the block of an apply Terraform killed before it said anything", () => {
    const killed = block(B, "local-exec provisioner error", ["Error running command: signal: killed"]);
    expect(printed([applySaid(A), ...block(A), ...killed, "after"])).toEqual([
      applySaid(A),
      `routerjobs: ${B}: interrupted; the next deploy finishes its change`,
      "after",
    ]);
  });

  it("drops the apply's line when it arrives after the block deploy spoke for: one closing line either way", () => {
    expect(printed([...block(A), applySaid(A)])).toEqual([
      `routerjobs: ${A}: interrupted; the next deploy finishes its change`,
    ]);
  });

  it("leaves other output alone", () => {
    const lines = [`${A} (local-exec): routerjobs: office/dns: waiting for job 3`, "Apply complete!"];
    expect(printed(lines)).toEqual(lines);
  });
});
