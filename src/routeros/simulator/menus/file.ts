/**
 * `/file`: what is on the router's disk — the export files `/export file=` wrote (type `script`, with their
 * `contents`) and the backups `/system backup save` made (type `backup`). The list is made afresh from the disk
 * at every read, so it is never part of the configuration, a backup or an export; `remove` deletes the file.
 * Scripts use it to check that a file exists before they rely on it (`[/file find name="x.rsc"]`), and write a
 * text file with `add name=x.rsc contents=...` (how a restore puts an export it was given on the router).
 */
import { RouterOsError } from "../../errors.js";
import { type MenuDef, valueText } from "../schema.js";
import { type Item, Table } from "../table.js";
import { targets } from "../verbs.js";

export const FILE_TABLE = "file";

/**
 * The ids of the files on the disk: a file keeps its id while it exists (rewriting it keeps it too), and no id
 * is handed out twice, so removing one file never makes a listed id name another.
 */
export class DiskIds {
  private constructor(
    private readonly ids: Map<string, number>,
    private next: number,
  ) {}

  static empty(): DiskIds {
    return new DiskIds(new Map(), 1);
  }

  /** From a snapshot; one taken before files had ids gets them in the order of `names`. */
  static from(state: DiskIdsState | undefined, names: readonly string[]): DiskIds {
    const disk = state ? new DiskIds(new Map(Object.entries(state.ids)), state.nextId) : DiskIds.empty();
    for (const name of names) disk.idOf(name);
    return disk;
  }

  idOf(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(name, id);
    }
    return id;
  }

  forget(name: string): void {
    this.ids.delete(name);
  }

  state(): DiskIdsState {
    return { nextId: this.next, ids: Object.fromEntries(this.ids) };
  }
}

export interface DiskIdsState {
  readonly nextId: number;
  readonly ids: Readonly<Record<string, number>>;
}

/** The disk as `/file` lists it: text files first, then backups, each in the order they were written. */
export function fileTable(
  files: ReadonlyMap<string, string>,
  backups: ReadonlyMap<string, unknown>,
  ids: DiskIds,
): Table {
  const items: Item[] = [];
  for (const [name, contents] of files) {
    const values = { name, type: "script", size: String(Buffer.byteLength(contents)), contents };
    items.push({ id: ids.idOf(name), values });
  }
  for (const [name, state] of backups) {
    const values = { name, type: "backup", size: String(Buffer.byteLength(JSON.stringify(state))) };
    items.push({ id: ids.idOf(name), values });
  }
  return Table.from({ nextId: ids.state().nextId, items });
}

const readOnly = { type: { kind: "string" }, readOnly: true } as const;

export const fileMenus: readonly MenuDef[] = [
  {
    path: ["file"],
    table: FILE_TABLE,
    key: "name",
    exported: false,
    canAdd: false,
    columns: ["name", "type", "size"],
    verbs: {
      add: {
        arguments: ["name", "contents", "type"],
        run: (call, router) => {
          const text = (name: string) => {
            const value = call.named.get(name);
            return value === undefined ? undefined : valueText(value);
          };
          const name = text("name") ?? "";
          if (name === "" || /[\\]|^\/|\.\./.test(name)) throw new RouterOsError("invalid file name");
          const type = text("type");
          if (type !== undefined && type !== "file")
            throw new RouterOsError(`failure: only a text file can be added (type=${type})`);
          router.writeFile(name, text("contents") ?? "");
          return {};
        },
      },
      remove: {
        arguments: ["numbers"],
        run: (call, router, menu) => {
          const chosen = targets(call, router, menu);
          if (chosen.length === 0) throw new RouterOsError("no such item");
          for (const item of chosen) router.removeFile(item.values.name ?? "");
          return {};
        },
      },
    },
    properties: { name: readOnly, type: readOnly, size: readOnly, contents: readOnly },
  },
];
