/**
 * A reader of the ustar archives PGlite writes (`dumpDataDir`): regular files and folders, names of up to 255
 * bytes. Anything else (links, devices, pax or GNU extension headers) is refused rather than half-understood,
 * and so is a header whose checksum is wrong or a name that climbs out of the archive (`..`).
 */
export interface TarEntry {
  /** Relative, `/`-separated, without a leading `/` or `./`. */
  readonly path: string;
  readonly type: "file" | "directory";
  /** Permission bits (`0o600`). */
  readonly mode: number;
  /** The file's bytes (a view into the archive); empty for a folder. */
  readonly data: Uint8Array;
}

const BLOCK = 512;

export function* readTar(archive: Uint8Array): Generator<TarEntry> {
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return; // the end-of-archive blocks
    const where = `tar entry at byte ${offset}`;
    if (octal(header, 148, 8, where) !== checksum(header))
      throw new Error(`${where}: the header's checksum is wrong`);
    const name = text(header, 0, 100);
    const prefix = text(header, 257, 6) === "ustar" ? text(header, 345, 155) : "";
    const path = safePath(prefix ? `${prefix}/${name}` : name, where);
    const flag = String.fromCharCode(header[156] ?? 0);
    const size = octal(header, 124, 12, where);
    const start = offset + BLOCK;
    if (start + size > archive.length) throw new Error(`${where} (${path}): the archive ends inside it`);
    const type = flag === "0" || flag === "\0" ? "file" : flag === "5" ? "directory" : undefined;
    if (!type) throw new Error(`${where} (${path}): entry type '${flag}' is not supported`);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
    if (path === "" && type === "directory") continue; // the archive's own root, `./`
    if (path === "") throw new Error(`${where}: a file needs a name`);
    yield {
      path,
      type,
      mode: octal(header, 100, 8, where) & 0o777,
      data: archive.subarray(start, start + (type === "file" ? size : 0)),
    };
  }
}

function text(header: Uint8Array, at: number, length: number): string {
  const field = header.subarray(at, at + length);
  const end = field.indexOf(0);
  return Buffer.from(end === -1 ? field : field.subarray(0, end)).toString("utf8");
}

function octal(header: Uint8Array, at: number, length: number, where: string): number {
  const digits = text(header, at, length).trim();
  if (!/^[0-7]*$/.test(digits)) throw new Error(`${where}: '${digits}' is not an octal number`);
  return digits === "" ? 0 : Number.parseInt(digits, 8);
}

/** The header's bytes summed with its checksum field read as eight spaces (POSIX ustar). */
function checksum(header: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  return sum;
}

function safePath(raw: string, where: string): string {
  const parts = raw.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new Error(`${where}: '${raw}' does not name a place inside the archive`);
  return parts.join("/");
}
