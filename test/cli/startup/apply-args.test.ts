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
