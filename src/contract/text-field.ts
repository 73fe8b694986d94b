import * as z from "zod";
import { describeValue } from "./ids.js";
import { type TextLimits, textProblems } from "./text.js";

/** A string field of a request: its type, its limits in characters, and text that can be stored. */
export function textField(field: string, limits: TextLimits = {}) {
  return z
    .string({ error: (issue) => `${field} must be a string (got ${describeValue(issue.input)})` })
    .superRefine((value, ctx) => {
      for (const message of textProblems(field, value, limits)) ctx.addIssue({ code: "custom", message });
    });
}
