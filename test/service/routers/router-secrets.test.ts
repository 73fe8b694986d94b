/**
 * A device router's password at rest: AES-256-GCM bound to the router id, keys with ids for rotation, and the
 * key's sources (environment, a 0600 key file created on first use, an in-memory key for memory://).
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EnvironmentError, UsageError } from "../../../src/errors.js";
import {
  loadKeyring,
  openPassword,
  parseRouterKeys,
  ROUTER_KEY_ENV,
  resealPassword,
  sealPassword,
  serviceKeyring,
} from "../../../src/service/routers/router-secrets.js";

const ROUTER_1 = "d1000000-0000-4000-8000-000000000001";
const ROUTER_2 = "d2000000-0000-4000-8000-000000000002";
const PASSWORD = "correct horse battery staple ✓";
const keyText = () => randomBytes(32).toString("base64");
const keyringWith = (text: string) => parseRouterKeys(text, ROUTER_KEY_ENV);
/** Every way an error could carry a secret: its message, its fields, inspect and JSON. */
const everything = (error: unknown) =>
  `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack} ${Object.values(error as object).join(" ")}`;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("sealing a router password", () => {
  const key = keyText();
  const keyring = keyringWith(`k1:${key}`);

  it("round-trips any password, and never stores it in clear", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 64, unit: "grapheme" }), (password) => {
        const sealed = sealPassword(keyring, ROUTER_1, password);
        expect(sealed.keyId).toBe("k1");
        if (password.length >= 4) {
          expect(sealed.sealed).not.toContain(password);
          expect(Buffer.from(sealed.sealed, "base64").toString("utf8")).not.toContain(password);
        }
        expect(openPassword(keyring, ROUTER_1, sealed)).toBe(password);
      }),
    );
  });

  it("uses a fresh nonce each time: the same password seals differently", () => {
    const a = sealPassword(keyring, ROUTER_1, PASSWORD);
    const b = sealPassword(keyring, ROUTER_1, PASSWORD);
    expect(a.sealed).not.toBe(b.sealed);
  });

  it("a ciphertext copied onto another router does not decrypt there", () => {
    const sealed = sealPassword(keyring, ROUTER_1, PASSWORD);
    const error = thrown(() => openPassword(keyring, ROUTER_2, sealed));
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toMatch(
      new RegExp(`router ${ROUTER_2} does not decrypt with key id "k1".*another router`),
    );
    expect(everything(error)).not.toContain(PASSWORD);
    expect(everything(error)).not.toContain(key);
  });

  it("a tampered ciphertext (any byte) or a truncated one fails to decrypt", () => {
    const sealed = sealPassword(keyring, ROUTER_1, PASSWORD);
    const bytes = Buffer.from(sealed.sealed, "base64");
    for (let index = 0; index < bytes.length; index++) {
      const altered = Buffer.from(bytes);
      altered[index] = (altered[index] as number) ^ 0x01;
      const tampered = { ...sealed, sealed: altered.toString("base64") };
      expect(() => openPassword(keyring, ROUTER_1, tampered)).toThrow(/does not decrypt/);
    }
    const short = { ...sealed, sealed: bytes.subarray(0, 20).toString("base64") };
    expect(() => openPassword(keyring, ROUTER_1, short)).toThrow(/does not decrypt/);
  });

  it("a ciphertext under a key the keyring lacks names the key id and where the keys come from", () => {
    const sealed = sealPassword(keyringWith(`gone:${keyText()}`), ROUTER_1, PASSWORD);
    expect(() => openPassword(keyring, ROUTER_1, sealed)).toThrow(
      `key id "gone", which ${ROUTER_KEY_ENV} does not hold`,
    );
  });

  it("the same key under another id does not pass for it: the id is checked before the key is used", () => {
    const sealed = sealPassword(keyring, ROUTER_1, PASSWORD);
    expect(() => openPassword(keyringWith(`k2:${key}`), ROUTER_1, sealed)).toThrow(/key id "k1"/);
  });
});

describe("key rotation", () => {
  const oldKey = keyText();
  const newKey = keyText();
  const before = keyringWith(`old:${oldKey}`);
  const after = keyringWith(`new:${newKey},old:${oldKey}`);

  it("the old key id still decrypts; re-encryption moves the password to the current key", () => {
    const sealed = sealPassword(before, ROUTER_1, PASSWORD);
    expect(openPassword(after, ROUTER_1, sealed)).toBe(PASSWORD);
    const moved = resealPassword(after, ROUTER_1, sealed);
    expect(moved?.keyId).toBe("new");
    expect(openPassword(keyringWith(`new:${newKey}`), ROUTER_1, moved as never)).toBe(PASSWORD);
    // Once moved, nothing more to do; and the retired key alone cannot read it.
    expect(resealPassword(after, ROUTER_1, moved as never)).toBeUndefined();
    expect(() => openPassword(before, ROUTER_1, moved as never)).toThrow(/key id "new"/);
  });
});

describe(`${ROUTER_KEY_ENV} parsing`, () => {
  it("a bare key gets an id derived from it, stable across loads", () => {
    const key = keyText();
    const first = keyringWith(key);
    expect(first.current.id).toMatch(/^k[0-9a-f]{12}$/);
    expect(keyringWith(`  ${key}\n`).current.id).toBe(first.current.id);
    expect(keyringWith(keyText()).current.id).not.toBe(first.current.id);
  });

  it("several keys: the first is current, every one decrypts", () => {
    const keyring = keyringWith(`a:${keyText()}, b:${keyText()},c:${keyText()}`);
    expect(keyring.current.id).toBe("a");
    expect([...keyring.keys.keys()]).toEqual(["a", "b", "c"]);
  });

  it("refuses bad entries with the position, the id and the rule, never the key's text", () => {
    const short = randomBytes(16).toString("base64");
    const cases: [string, string][] = [
      ["", "holds no key"],
      [" , ", "holds no key"],
      [short, `${ROUTER_KEY_ENV}: key 1: must be the base64 of 32 random bytes (got 16 bytes)`],
      [`a:${keyText()},b:${short}`, `key 2 (id "b"): must be the base64 of 32 random bytes (got 16 bytes)`],
      [`a:not*base64!`, `key 1 (id "a"): must be the base64 of 32 random bytes (got not base64)`],
      [`bad id:${keyText()}`, `key 1 (id "bad id"): the key id must be 1 to 32 of A-Z a-z 0-9 _ -`],
      [`a:${keyText()},a:${keyText()}`, `key 2 (id "a"): the key id is used twice`],
    ];
    for (const [text, message] of cases) {
      const error = thrown(() => keyringWith(text));
      expect(error, text).toBeInstanceOf(UsageError);
      expect((error as Error).message, text).toContain(message);
      for (const part of text.split(/[,:]/).filter((piece) => piece.trim().length > 8)) {
        expect((error as Error).message).not.toContain(part.trim());
      }
    }
  });
});

describe("where the key comes from", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rj-router-key-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("the environment wins over the data directory, which then gets no key file", async () => {
    const data = join(dir, "env");
    const keyring = await loadKeyring({
      dataDir: data,
      database: "memory://",
      env: { [ROUTER_KEY_ENV]: `env1:${keyText()}` },
    });
    expect(keyring.current.id).toBe("env1");
    expect(keyring.source).toBe(ROUTER_KEY_ENV);
    await expect(stat(join(data, "router-key"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it.skipIf(process.platform === "win32")(
    "creates <data>/router-key with mode 0600, and reads it back",
    async () => {
      const data = join(dir, "created", "nested");
      const first = await loadKeyring({ dataDir: data, database: "memory://", env: {} });
      const file = join(data, "router-key");
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(first.source).toBe(file);
      const again = await loadKeyring({ dataDir: data, database: "memory://", env: {} });
      expect(again.current.id).toBe(first.current.id);
      const sealed = sealPassword(first, ROUTER_1, PASSWORD);
      expect(openPassword(again, ROUTER_1, sealed)).toBe(PASSWORD);
      expect(await readFile(file, "utf8")).toMatch(/^k[0-9a-f]{12}:[A-Za-z0-9+/]{43}=\n$/);
    },
  );

  it("concurrent first uses agree on one key", async () => {
    const data = join(dir, "race");
    const loads = await Promise.all(
      Array.from({ length: 8 }, () => loadKeyring({ dataDir: data, database: "memory://", env: {} })),
    );
    expect(new Set(loads.map((keyring) => keyring.current.id)).size).toBe(1);
  });

  it.skipIf(process.platform === "win32")("refuses a key file that group or others can read", async () => {
    const data = join(dir, "loose");
    await loadKeyring({ dataDir: data, database: "memory://", env: {} });
    const file = join(data, "router-key");
    const key = (await readFile(file, "utf8")).split(":")[1]?.trim() as string;
    for (const mode of [0o640, 0o604, 0o644]) {
      await chmod(file, mode);
      const error = await loadKeyring({ dataDir: data, database: "memory://", env: {} }).catch((e) => e);
      expect(error).toBeInstanceOf(EnvironmentError);
      expect(error.message).toBe(
        `the router key file ${file} has mode 0${mode.toString(8)}: group and others must not read it (chmod 600 ${file})`,
      );
      expect(everything(error)).not.toContain(key);
    }
  });

  it.skipIf(process.platform === "win32")(
    "refuses a symbolic link and a key file with a bad key",
    async () => {
      const data = join(dir, "link");
      await loadKeyring({ dataDir: join(dir, "target"), database: "memory://", env: {} });
      await loadKeyring({ dataDir: data, database: "memory://", env: {} });
      await rm(join(data, "router-key"));
      await symlink(join(dir, "target", "router-key"), join(data, "router-key"));
      await expect(loadKeyring({ dataDir: data, database: "memory://", env: {} })).rejects.toThrow(
        /router key file .* is a symbolic link/,
      );
      const bad = join(dir, "bad");
      await loadKeyring({ dataDir: bad, database: "memory://", env: {} });
      await writeFile(join(bad, "router-key"), "abc\n");
      await expect(loadKeyring({ dataDir: bad, database: "memory://", env: {} })).rejects.toThrow(
        `${join(bad, "router-key")}: key 1: must be the base64 of 32 random bytes (got 2 bytes)`,
      );
    },
  );

  it("memory:// without a data directory: a key in memory, one per service configuration", async () => {
    const config = { database: "memory://" };
    const keyring = await serviceKeyring(config, {});
    expect(keyring.source).toBe("memory");
    expect(await serviceKeyring(config, {})).toBe(keyring);
    expect((await serviceKeyring({ database: "memory://" }, {})).current.key).not.toEqual(
      keyring.current.key,
    );
  });

  it("PostgreSQL without a data directory or a key in the environment is refused, naming both", async () => {
    await expect(loadKeyring({ database: "postgres://db/routerjobs", env: {} })).rejects.toThrow(
      `router passwords need a key: set ${ROUTER_KEY_ENV} or give the service a data directory for router-key`,
    );
  });
});
