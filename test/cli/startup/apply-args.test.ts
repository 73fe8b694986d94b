import { describe, expect, it } from "vitest";
import { parseApplyArgs } from "../../../src/cli/startup/apply-args.js";

describe("apply's lean entry reads its flags without commander", () => {
  it("reads every flag apply declares, in both forms, the last one winning", () => {
    expect(
      parseApplyArgs([
        "--url",
        "https://a",
        "--url=https://b",
        "--wait-for",
        "poll",
        "--force",
        "--verbose",
        "--timeout=30s",
        "--job-file",
        "-",
      ]),
    ).toEqual({
      url: "https://b",
      waitFor: "poll",
      force: true,
      verbose: true,
      timeout: "30s",
      jobFile: "-",
    });
    expect(parseApplyArgs([])).toEqual({});
  });

  it("keeps --token, so that it is refused with the usual message", () => {
    expect(parseApplyArgs(["--token", "x"])).toEqual({ token: "x" });
  });

  it("leaves to the full CLI what it does not read: help, unknown flags, arguments, a missing value", () => {
    for (const args of [["--help"], ["-h"], ["--wat"], ["extra"], ["--url"], ["--force=yes"]])
      expect(parseApplyArgs(args)).toBeUndefined();
  });
});

describe("the lean entry and the full CLI", () => {
  it("read the same flags into the same keys: every flag commander declares for apply, and --verbose", async () => {
    const { applyCommand } = await import("../../../src/cli/commands/apply.js");
    const { buildProgram } = await import("../../../src/cli/index.js");
    const options = [...applyCommand().options, ...buildProgram().options].filter(
      (option) => option.long !== "--version",
    );
    expect(options.length).toBeGreaterThan(8);
    for (const option of options) {
      const args = option.required ? [option.long as string, "value"] : [option.long as string];
      // THEN the lean parser takes it (undefined would hand the line to commander) into commander's key
      expect(parseApplyArgs(args), option.long).toEqual({
        [option.attributeName()]: option.required ? "value" : true,
      });
    }
  });
});
