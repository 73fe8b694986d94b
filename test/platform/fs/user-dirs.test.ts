import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { userDirectory } from "../../../src/platform/fs/user-dirs.js";

describe("userDirectory", () => {
  it("prefers routerjobs' own variable, then the XDG one, then the XDG default", () => {
    expect(userDirectory("cache", { ROUTERJOBS_CACHE_DIR: "/a", XDG_CACHE_HOME: "/b" })).toBe("/a");
    expect(userDirectory("cache", { XDG_CACHE_HOME: "/b" })).toBe("/b/routerjobs");
    expect(userDirectory("cache", {})).toBe(join(homedir(), ".cache", "routerjobs"));
    expect(userDirectory("state", {})).toBe(join(homedir(), ".local", "state", "routerjobs"));
  });

  it("keeps each kind to its own variables", () => {
    expect(userDirectory("cache", { ROUTERJOBS_STATE_DIR: "/s", XDG_STATE_HOME: "/x" })).toBe(
      join(homedir(), ".cache", "routerjobs"),
    );
  });
});
