/** Terraform's diagnostics: what a provider reports instead of failing an RPC. */
import { SEVERITY } from "./protocol/messages.js";
import type { WireMessage } from "./protocol/wire.js";

export function errorDiagnostic(summary: string, detail = "", attribute?: string): WireMessage {
  return {
    severity: SEVERITY.error,
    summary,
    detail,
    ...(attribute ? { attribute: { steps: [{ attribute_name: attribute }] } } : {}),
  };
}

export function warningDiagnostic(summary: string, detail = ""): WireMessage {
  return { severity: SEVERITY.warning, summary, detail };
}
