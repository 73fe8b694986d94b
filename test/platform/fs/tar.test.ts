/**
 * The tar reader against archives GNU tar writes (a tar nobody here wrote), and the refusals that keep a
 * damaged or hostile archive from writing outside its folder.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { readTar } from "../../../src/platform/fs/tar.js";
import { scratchDir } from "../../helpers/scratch.js";

let root: string;
beforeAll(() => {
  root = scratchDir("routerjobs-tar-");
});

const segment = fc.stringMatching(/^[a-z0-9_][a-z0-9_.-]{0,11}$/).filter((s) => s !== "..");
const tree = fc.uniqueArray(
  fc.record({
    path: fc.array(segment, { minLength: 1, maxLength: 4 }),
    data: fc.uint8Array({ maxLength: 2000 }),
    mode: fc.constantFrom(0o600, 0o640, 0o644, 0o700),
  }),
  { selector: (file) => file.path.join("/").toLowerCase(), maxLength: 12 },
);

/** GNU tar's ustar archive of `files`, written from a scratch folder. */
function gnuTar(files: readonly { path: string[]; data: Uint8Array; mode: number }[]): Buffer {
  const folder = mkdtempSync(join(root, "tree-"));
  for (const file of files) {
    mkdirSync(join(folder, ...file.path.slice(0, -1)), { recursive: true });
    writeFileSync(join(folder, ...file.path), file.data);
    chmodSync(join(folder, ...file.path), file.mode);
  }
  const archive = join(root, `${folder.split("/").at(-1)}.tar`);
  execFileSync("tar", ["--format=ustar", "-cf", archive, "-C", folder, "."]);
  return readFileSync(archive);
}

/** A one-entry ustar header, by hand, for the refusals. */
function header(name: string, type: string, size = 0): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0);
  block.write("0000644\0", 100);
  block.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  block.write(type, 156);
  block.write("ustar\0" + "00", 257);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return block;
}

describe("readTar", () => {
  it("reads back every file, its bytes and its mode from what GNU tar wrote", () => {
    fc.assert(
      fc.property(
        tree.filter((files) => {
          // A path may not be both a file and a folder.
          const names = new Set(files.map((f) => f.path.join("/")));
          return files.every((f) =>
            f.path.every((_, i) => i === 0 || !names.has(f.path.slice(0, i).join("/"))),
          );
        }),
        (files) => {
          const entries = [...readTar(gnuTar(files))];
          const read = new Map(entries.filter((e) => e.type === "file").map((e) => [e.path, e]));
          expect([...read.keys()].sort()).toEqual(files.map((f) => f.path.join("/")).sort());
          for (const file of files) {
            const entry = read.get(file.path.join("/"));
            expect(Buffer.from(entry?.data ?? [])).toEqual(Buffer.from(file.data));
            expect(entry?.mode).toBe(file.mode);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("reads names longer than 100 bytes (ustar's prefix field)", () => {
    const deep = ["a".repeat(60), "b".repeat(60), "c.txt"];
    const entries = [...readTar(gnuTar([{ path: deep, data: Buffer.from("x"), mode: 0o600 }]))];
    expect(entries.map((e) => e.path)).toContain(deep.join("/"));
  });

  it("refuses a header whose checksum is wrong", () => {
    const damaged = Buffer.concat([header("a.txt", "0"), Buffer.alloc(1024)]);
    damaged[0] = "b".charCodeAt(0);
    expect(() => [...readTar(damaged)]).toThrow("tar entry at byte 0: the header's checksum is wrong");
  });

  it("refuses a name that climbs out of the archive", () => {
    const climbing = Buffer.concat([header("../etc/passwd", "0"), Buffer.alloc(1024)]);
    expect(() => [...readTar(climbing)]).toThrow("'../etc/passwd' does not name a place inside the archive");
  });

  it("refuses links rather than half-understanding them", () => {
    const link = Buffer.concat([header("a-link", "2"), Buffer.alloc(1024)]);
    expect(() => [...readTar(link)]).toThrow("(a-link): entry type '2' is not supported");
  });

  it("refuses an archive that ends inside a file", () => {
    const cut = Buffer.concat([header("big.bin", "0", 4096), Buffer.alloc(512)]);
    expect(() => [...readTar(cut)]).toThrow("(big.bin): the archive ends inside it");
  });
});
