import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ssh2 from "ssh2";
import { describe, expect, it } from "vitest";
import { loginName } from "../../../../src/routeros/simulator/adapters/ssh-front-end.js";
import {
  hostKeyIn,
  newHostKey,
  parseAuthorizedKeys,
} from "../../../../src/routeros/simulator/adapters/ssh-keys.js";
import { scratchDir } from "../../../helpers/scratch.js";

describe("the simulated router's SSH keys", () => {
  it("makes an ed25519 host key once and reads the same one back from its file", async () => {
    const file = join(scratchDir("routerjobs-ssh-keys-"), "state.json.ssh-host-key");
    const made = await hostKeyIn(file);
    expect(made.publicKey).toMatch(/^ssh-ed25519 AAAA[A-Za-z0-9+/]+=*$/);
    expect(made.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await hostKeyIn(file)).toEqual(made);
    expect(newHostKey().fingerprint).not.toBe(made.fingerprint);
  });

  it("refuses a host key file that holds no key, rather than replacing it", async () => {
    const file = join(scratchDir("routerjobs-ssh-keys-"), "broken");
    writeFileSync(file, "not a key\n");
    await expect(hostKeyIn(file)).rejects.toThrow(/^host key file .*broken: /);
    expect(readFileSync(file, "utf8")).toBe("not a key\n");
  });

  it("reads authorized_keys lines with options and comments, and names a bad line", () => {
    const pair = ssh2.utils.generateKeyPairSync("ed25519");
    const text = `# ops\n\nno-pty,from="10.0.0.0/8" ${pair.public}\n${pair.public}\n`;
    const keys = parseAuthorizedKeys(text, "keys");
    expect(keys).toHaveLength(2);
    expect(keys[0]?.type).toBe("ssh-ed25519");
    expect(() => parseAuthorizedKeys(`${pair.public}\nssh-ed25519 bm90IGEga2V5\n`, "keys")).toThrow(
      /^keys line 2 is not an OpenSSH public key/,
    );
    expect(() => parseAuthorizedKeys(pair.private, "keys")).toThrow(/^keys line 1 /);
  });

  it("drops RouterOS's console options from a login name", () => {
    expect(loginName("admin+ct80w")).toBe("admin");
    expect(loginName("admin+")).toBe("admin");
    expect(loginName("admin")).toBe("admin");
    expect(loginName("ops+team+c")).toBe("ops+team");
  });
});
