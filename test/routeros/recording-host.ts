/**
 * A test double for `CommandHost`: a tiny in-memory router that records every call. The real host is the
 * simulated router (src/routeros/simulator), written in parallel; these tests pin the language side.
 */
import { RouterOsError } from "../../src/routeros/errors.js";
import type {
  CommandCall,
  CommandCatalog,
  CommandHost,
  CommandResult,
  ItemProperties,
  RosValue,
} from "../../src/routeros/language/host.js";

const ITEM_VERBS = ["add", "set", "remove", "print", "find", "get", "export", "enable", "disable"];
/** Menus and their commands; `[]` lists commands of the root. */
export const MENUS: Readonly<Record<string, readonly string[]>> = {
  "": [],
  ip: [],
  "ip/address": ITEM_VERBS,
  "ip/route": ITEM_VERBS,
  interface: ITEM_VERBS,
  "interface/ethernet": ITEM_VERBS,
  system: ["reboot"],
  "system/identity": ["set", "print"],
};

export const testCatalog: CommandCatalog = {
  isMenu: (path) => Object.hasOwn(MENUS, path.join("/")),
  hasCommand: (path, verb) => MENUS[path.join("/")]?.includes(verb) ?? false,
  hasArgument: () => true,
};

type Item = Record<string, string>;

export class RecordingHost implements CommandHost {
  readonly catalog = testCatalog;
  readonly calls: CommandCall[] = [];
  readonly logs: { topics: readonly string[]; message: string }[] = [];
  readonly delays: number[] = [];
  private readonly tables = new Map<string, Item[]>();
  private nextId = 1;

  constructor(seed: Readonly<Record<string, readonly ItemProperties[]>> = {}) {
    for (const [menu, items] of Object.entries(seed)) {
      this.tables.set(
        menu,
        items.map((item) => ({ ".id": `*${(this.nextId++).toString(16).toUpperCase()}`, ...item })),
      );
    }
  }

  items(menu: string): Item[] {
    let table = this.tables.get(menu);
    if (!table) {
      table = [];
      this.tables.set(menu, table);
    }
    return table;
  }

  execute(call: CommandCall): CommandResult {
    this.calls.push(call);
    const table = this.items(call.menu.join("/"));
    const ids = (value: RosValue | undefined): string[] =>
      Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)];
    const select = (value: RosValue | undefined): Item[] => {
      const wanted = ids(value);
      const found = table.filter(
        (item) => wanted.includes(item[".id"] ?? "") || wanted.includes(item.name ?? ""),
      );
      if (found.length !== wanted.length) throw new RouterOsError("no such item");
      return found;
    };
    const text = (value: RosValue): string =>
      value === true ? "true" : value === false ? "false" : String(value);
    switch (call.verb) {
      case "add": {
        const item: Item = { ".id": `*${(this.nextId++).toString(16).toUpperCase()}`, disabled: "false" };
        for (const [key, value] of call.named) item[key] = text(value);
        if (item.address !== undefined && table.some((other) => other.address === item.address)) {
          throw new RouterOsError("failure: already have such address");
        }
        table.push(item);
        return { value: item[".id"] };
      }
      case "find":
        return {
          value: table
            .filter((item) => [...call.named].every(([key, value]) => item[key] === text(value)))
            .filter((item) => call.where?.(item) ?? true)
            .map((item) => item[".id"] ?? ""),
        };
      case "set":
        for (const item of select(call.positional[0]))
          for (const [key, value] of call.named) item[key] = text(value);
        return {};
      case "remove": {
        const doomed = new Set(select(call.positional[0]));
        this.tables.set(
          call.menu.join("/"),
          table.filter((item) => !doomed.has(item)),
        );
        return {};
      }
      case "get": {
        const [item] = select(call.positional[0]);
        return { value: item?.[String(call.positional[1])] ?? null };
      }
      case "print": {
        const shown = table.filter((item) => call.where?.(item) ?? true);
        return {
          output: shown.map((item) =>
            Object.entries(item)
              .map(([k, v]) => `${k}=${v}`)
              .join(" "),
          ),
          records: shown,
        };
      }
      default:
        return {};
    }
  }

  log(topics: readonly string[], message: string): void {
    this.logs.push({ topics, message });
  }

  async delay(ms: number): Promise<void> {
    this.delays.push(ms);
  }
}

/** The RouterOS error a script run ends with; fails the test when it ends otherwise. */
export async function failure(promise: Promise<unknown>): Promise<RouterOsError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RouterOsError) return error;
    throw error;
  }
  throw new Error("expected the script to fail");
}
