/** `routerjobs router simulate`'s flags for the model: checked before the device starts, naming the flag. */
import { describe, expect, it } from "vitest";
import { parseFlags } from "../../../src/cli/commands/router-simulate.js";
import { UsageError } from "../../../src/errors.js";

const base = { api: "127.0.0.1:0", user: "admin", passwordFile: "pw", pingIntervalMs: "1000" };

describe("router simulate --model", () => {
  it("takes a model of the catalog by name or product code, with its defaults unless --no-defaults", async () => {
    expect(await parseFlags({ ...base, model: "hAP ax3" })).toMatchObject({
      model: "hAP ax3",
      defaults: true,
    });
    expect(await parseFlags({ ...base, model: "RB750Gr3", defaults: false })).toMatchObject({
      defaults: false,
    });
    expect((await parseFlags(base)).model).toBeUndefined();
  });

  it("refuses a model it does not know, naming the flag and the known models", async () => {
    const error = await parseFlags({ ...base, model: "RB951" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(
      /^--model: unknown router model "RB951": known models are CHR, hEX,/,
    );
  });
});

describe("router simulate --rest", () => {
  it("takes HOST:PORT, and refuses anything else naming the flag and an example", async () => {
    expect((await parseFlags({ ...base, rest: "127.0.0.1:8443" })).rest).toBe("127.0.0.1:8443");
    expect((await parseFlags({ ...base, rest: "[::1]:0" })).rest).toBe("[::1]:0");
    expect((await parseFlags(base)).rest).toBeUndefined();
    const error = await parseFlags({ ...base, rest: "8443" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe("--rest must be HOST:PORT, like 127.0.0.1:8443");
  });

  it("is described in --help with what it serves", async () => {
    const { routerCommand } = await import("../../../src/cli/commands/router-simulate.js");
    const simulate = routerCommand().commands.find((command) => command.name() === "simulate");
    let help = "";
    simulate?.configureOutput({ writeOut: (text) => (help += text) }).outputHelp();
    expect(help).toMatch(/--rest <host:port>\s+also serve RouterOS's REST API/);
    expect(help).toMatch(/GET \/rest\/ip\/address \(print/);
  });
});

describe("router simulate --ssh", () => {
  it("takes HOST:PORT and an authorized_keys file", async () => {
    expect(await parseFlags({ ...base, ssh: "127.0.0.1:2222", sshAuthorizedKeys: "keys" })).toMatchObject({
      ssh: "127.0.0.1:2222",
      sshAuthorizedKeys: "keys",
    });
  });

  it("refuses an address without a port, and keys without --ssh, naming the flag", async () => {
    await expect(parseFlags({ ...base, ssh: "localhost" })).rejects.toThrow(/^--ssh must be HOST:PORT/);
    await expect(parseFlags({ ...base, sshAuthorizedKeys: "keys" })).rejects.toThrow(
      /^--ssh-authorized-keys needs --ssh HOST:PORT/,
    );
  });
});
