import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import ssh2 from "ssh2";
import { describe, expect, it } from "vitest";
import { loginName } from "../../../../src/routeros/simulator/adapters/ssh-front-end.js";
import {
  hostKeyIn,
  newHostKey,
  openSshEd25519PrivateKey,
  parseAuthorizedKeys,
} from "../../../../src/routeros/simulator/adapters/ssh-keys.js";
import { scratchDir } from "../../../helpers/scratch.js";

const keygen = existsSync("/usr/bin/ssh-keygen");
if (!keygen && process.env.CI !== "true") {
  console.log("skipped: ssh-keygen is missing (Debian: apt-get install -y openssh-client)");
}

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

  it("writes any ed25519 seed as a private key that ssh2 reads, one whose public key starts with zeros too", () => {
    // The seed whose public key begins 0000: ssh2's own generator dropped those bytes and wrote a broken key.
    const zeroLed = Buffer.alloc(32);
    zeroLed.writeUInt32BE(36, 28);
    const key = newHostKey(zeroLed);
    expect(
      Buffer.from(key.publicKey.split(" ")[1] ?? "", "base64")
        .subarray(19, 21)
        .toString("hex"),
    ).toBe("0000");
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (seed) => {
        const parsed = ssh2.utils.parseKey(openSshEd25519PrivateKey(Buffer.from(seed)));
        expect(parsed).not.toBeInstanceOf(Error);
        // It signs, and its public half verifies the signature.
        const one = parsed as ssh2.ParsedKey;
        const signature = one.sign(Buffer.from("data"));
        expect(one.verify(Buffer.from("data"), signature as Buffer)).toBe(true);
      }),
    );
  });

  it.runIf(keygen || process.env.CI === "true")(
    "writes a key OpenSSH's ssh-keygen reads, with the same public key",
    () => {
      const file = join(scratchDir("routerjobs-ssh-keys-"), "key");
      const zeroLed = Buffer.alloc(32);
      zeroLed.writeUInt32BE(36, 28);
      for (const key of [newHostKey(), newHostKey(zeroLed)]) {
        writeFileSync(file, key.privateKey, { mode: 0o600 });
        const derived = spawnSync("ssh-keygen", ["-y", "-f", file]);
        expect(derived.stderr.toString()).toBe("");
        expect(derived.stdout.toString().trim()).toBe(key.publicKey);
      }
    },
  );

  it("refuses a host key file that holds no key, rather than replacing it", async () => {
    const file = join(scratchDir("routerjobs-ssh-keys-"), "broken");
    writeFileSync(file, "not a key\n");
    await expect(hostKeyIn(file)).rejects.toThrow(/^host key file .*broken: /);
    expect(readFileSync(file, "utf8")).toBe("not a key\n");
  });

  it("reads authorized_keys lines with options and comments, and names a bad line", () => {
    const made = newHostKey();
    const pair = { public: made.publicKey, private: made.privateKey };
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
