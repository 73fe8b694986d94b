import { TerraformStack, Testing } from "cdktf";
import { describe, expect, it } from "vitest";
import {
  ConstructValidationError,
  RouterConfig,
  RouterScript,
  type RouterScriptProps,
} from "../../../src/deploy/constructs/index.js";
import { testingApp } from "../../helpers/scratch.js";
import { ROUTER_A } from "./support.js";

const VALID: RouterScriptProps = { routerId: ROUTER_A, script: "/ip dns set servers=1.1.1.1" };

/** Builds one RouterScript at office/edge-1/firewall, the path the messages name. */
function build(props: Partial<RouterScriptProps> | Record<string, unknown>): void {
  const stack = new TerraformStack(testingApp(Testing), "office");
  const { routerId, ...section } = { ...VALID, ...(props as Partial<RouterScriptProps>) };
  new RouterConfig(stack, "edge-1", { routerId, sections: [{ name: "firewall", ...section }] });
}

describe("RouterScript validation at synth time", () => {
  it.each([
    [
      "a script over the limit",
      { script: `:log info "${"x".repeat(2405)}"` },
      "script must be at most 2000 characters on the spec API (got 2417); the sdx API takes up to 10000",
    ],
    ["an empty script", { script: "" }, "script must not be empty"],
    [
      "builder lines over the limit",
      { script: Array(21).fill(`:log info "${"y".repeat(87)}"`) },
      "script must be at most 2000 characters on the spec API (got 2099); the sdx API takes up to 10000",
    ],
    [
      "a script that does not parse",
      { script: "/ip dns set servers=1.1.1.1 }" },
      "script does not parse as RouterOS: expected end of command (line 1 column 29)",
    ],
    [
      "a description over the limit",
      { description: "d".repeat(101) },
      "description must be at most 100 characters (got 101)",
    ],
    ["an empty description", { description: "" }, "description must not be empty"],
    [
      "a description of 101 emoji (characters, not UTF-16 units)",
      { description: "😀".repeat(101) },
      "description must be at most 100 characters (got 101)",
    ],
    [
      "a NUL in a description",
      { description: "set\u0000dns" },
      "description must not contain NUL characters (\\u0000)",
    ],
    [
      "an unpaired surrogate in a script",
      { script: ':log info "\ud800"' },
      "script must not contain unpaired UTF-16 surrogates (\\ud800-\\udfff)",
    ],
    [
      "an upper-case router id",
      { routerId: ROUTER_A.toUpperCase() },
      `routerId must be a lowercase UUID (got "${ROUTER_A.toUpperCase()}")`,
    ],
    [
      "a router name instead of an id",
      { routerId: "edge-1" },
      'routerId must be a lowercase UUID (got "edge-1")',
    ],
    [
      "an http notify URL",
      { notifyUrl: "http://hooks.example.net/x" },
      'notifyUrl must be an absolute https URL (got "http://hooks.example.net/x")',
    ],
    [
      "a notify URL without host",
      { notifyUrl: "https:x" },
      'notifyUrl must be an absolute https URL (got "https:x")',
    ],
    [
      "a destroy script over the limit",
      { destroyScript: "#".repeat(2001) },
      "destroyScript must be at most 2000 characters on the spec API (got 2001); the sdx API takes up to 10000",
    ],
    [
      "a destroy script that does not parse",
      { destroyScript: ':put "open' },
      "destroyScript does not parse as RouterOS",
    ],
    [
      "a destroy description over the limit",
      { destroyScript: '/ip dns set servers=""', destroyDescription: "d".repeat(120) },
      "destroyDescription must be at most 100 characters (got 120)",
    ],
    [
      "a timeout without unit",
      { timeout: "10" },
      'timeout must be a number followed by ms, s, m or h, like 90s or 10m (got "10")',
    ],
    [
      "an unknown wait mode",
      { waitFor: "webhook" },
      'waitFor must be one of poll, receiver, auto (got "webhook")',
    ],
    [
      "an unknown backing resource",
      { resource: "null_data_source" },
      'resource must be one of terraform_data, null_resource, provider (got "null_data_source")',
    ],
    ["an unknown API profile", { api: "rest" }, 'api must be one of spec, sdx (got "rest")'],
    [
      "a script over the sites API's limit",
      { api: "sdx", script: `:log info "${"x".repeat(10_001 - 12)}"` },
      "script must be at most 10000 characters on the sdx API (got 10001)",
    ],
    [
      "a script under the sites API's minimum",
      { api: "sdx", script: "/x" },
      "script must be at least 3 characters on the sdx API (got 2)",
    ],
    [
      "a notify URL for the sites API",
      { api: "sdx", notifyUrl: "https://hooks.example.net/x" },
      "api sdx (the sites API) takes no notify_url",
    ],
    ["an empty cli", { cli: "" }, "cli must not be empty"],
    ["a multi-line cli", { cli: "routerjobs\nrm -rf /" }, "cli must be a single line"],
  ])("refuses %s, naming the construct path, the field and the limit", (_case, props, message) => {
    // GIVEN props that break one rule
    // WHEN the construct is built
    // THEN it throws before any synth, with the path first
    expect(() => build(props)).toThrow(new RegExp(`^office/edge-1/firewall: ${escapeRegExp(message)}`));
  });

  it("lists every broken rule at once as typed problems", () => {
    // GIVEN props that break three rules
    let error: unknown;
    try {
      build({ routerId: "nope", description: "d".repeat(101), notifyUrl: "ftp://x" });
    } catch (caught) {
      error = caught;
    }
    // THEN one error names all three, in rule order, with its code for callers
    expect(error).toBeInstanceOf(ConstructValidationError);
    const typed = error as ConstructValidationError;
    expect(typed.code).toBe("RJ_ERR_CONSTRUCT_INVALID");
    expect(typed.path).toBe("office/edge-1/firewall");
    expect(typed.problems.map((problem) => problem.field)).toEqual(["routerId", "description", "notifyUrl"]);
  });

  it("accepts the limits themselves", () => {
    // GIVEN a script of exactly 2000 characters and a description of exactly 100
    const script = `:log info "${"x".repeat(2000 - 12)}"`;
    expect(script).toHaveLength(2000);
    // THEN it builds
    expect(() => build({ script, description: "d".repeat(100) })).not.toThrow();
    // AND the same in astral characters, each two UTF-16 units but one character
    const astral = `:log info "${"😀".repeat(2000 - 12)}"`;
    expect(() => build({ script: astral, description: "😀".repeat(100) })).not.toThrow();
  });

  it("takes a script up to the limit of the construct's api: 10000 characters on sdx", () => {
    // GIVEN a script of exactly 10000 characters, five times the spec's limit
    const script = `:log info "${"x".repeat(10_000 - 12)}"`;
    expect(script).toHaveLength(10_000);
    // THEN it builds for the sites API
    expect(() => build({ api: "sdx", script })).not.toThrow();
    // AND the same script for the default API is refused, the message naming where it fits
    expect(() => build({ script })).toThrow(
      "script must be at most 2000 characters on the spec API (got 10000); the sdx API takes up to 10000",
    );
  });

  it("explains a too long default description (the construct path)", () => {
    // GIVEN no description and a construct path over 100 characters
    const stack = new TerraformStack(testingApp(Testing), "office");
    // THEN the error names description, whose default is the path
    expect(() => new RouterScript(stack, "s".repeat(100), VALID)).toThrow(
      /^office\/s+: description must be at most 100 characters \(got 107\)/,
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
