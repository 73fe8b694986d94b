/**
 * `/file`: what is on the router's disk — the export files `/export file=` wrote (type `script`, with their
 * `contents`) and the backups `/system backup save` made (type `backup`). The list is made afresh from the disk
 * at every read, so it is never part of the configuration, a backup or an export; `remove` deletes the file.
 * Scripts use it to check that a file exists before they rely on it (`[/file find name="x.rsc"]`).
 */
import { RouterOsError } from "../../errors.js";
import type { MenuDef } from "../schema.js";
import { Table } from "../table.js";
import { targets } from "../verbs.js";

export const FILE_TABLE = "file";

/** The disk as `/file` lists it: text files first, then backups, each in the order they were written. */
export function fileTable(files: ReadonlyMap<string, string>, backups: ReadonlyMap<string, unknown>): Table {
  const table = Table.empty();
  for (const [name, contents] of files) {
    table.insert({ name, type: "script", size: String(Buffer.byteLength(contents)), contents });
  }
  for (const [name, state] of backups) {
    table.insert({ name, type: "backup", size: String(Buffer.byteLength(JSON.stringify(state))) });
  }
  return table;
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
