/**
 * Every menu through its life cycle: changes go through scripts, as a job's do; what the router then holds is
 * read through the sync API's record view. The rows live in menu-cases.ts.
 */
import { describe, expect, it } from "vitest";
import type { RouterRecord } from "../../../src/contract/sync.js";
import { apiCommand } from "../../../src/routeros/simulator/adapters/api-view.js";
import { menus } from "../../../src/routeros/simulator/menus/index.js";
import type { SimulatedRouter } from "../../../src/routeros/simulator/router.js";
import { fail, freshRouter, run } from "./helpers.js";
import { fixedRows, type ListRow, listRows, singletonRows } from "./menu-cases.js";

const records = (router: SimulatedRouter, path: string) =>
  apiCommand(router, `/${path.replaceAll(" ", "/")}/print`);

async function record(router: SimulatedRouter, path: string, id: string): Promise<RouterRecord | undefined> {
  return (await records(router, path)).find((r) => r.id === id);
}

/** The router's text for a script that must fail, without the position the interpreter appends. */
async function refusal(router: SimulatedRouter, script: string): Promise<string> {
  return (await fail(router, script)).replace(/ \(line \d+ column \d+\)$/, "");
}

/** A router holding the row's item (and what it references); `id` is what `add` returned. */
async function withItem(path: string, row: ListRow) {
  const router = freshRouter();
  if (row.setup) await run(router, row.setup);
  const id = await run(router, `:put [/${path} add ${row.add}]`);
  expect(id).toMatch(/^\*[0-9A-F]+$/);
  return { router, id };
}

describe("the menu table", () => {
  // Menus without properties (`/system`, `/system backup`, `/log`) only have verbs, and read-only ones
  // (`/system resource`) only print; system.test.ts runs them.
  it("has exactly one row for each menu that holds writable properties", () => {
    const declared = menus
      .filter((menu) => Object.values(menu.properties).some((def) => !def.readOnly))
      .map((menu) => menu.path.join(" "));
    const rows = [...Object.keys(listRows), ...Object.keys(fixedRows), ...Object.keys(singletonRows)];
    expect(rows.sort()).toEqual(declared.sort());
  });
});

describe.each(Object.entries(listRows))("/%s", (path, row) => {
  it("adds, prints, sets, disables and removes an item", async () => {
    const { router, id } = await withItem(path, row);
    const added = await record(router, path, id);
    expect(added).toMatchObject(row.added);

    await run(router, `/${path} set ${id} ${row.set}`);
    const changed = { ...added, ...row.changed };
    expect(await record(router, path, id)).toEqual(changed);

    // A menu whose items show `disabled` takes disable/enable; the others have no such verbs.
    if (added && "disabled" in added) {
      await run(router, `/${path} disable ${id}`);
      expect(await record(router, path, id)).toMatchObject({ disabled: "true" });
      await run(router, `/${path} enable ${id}`);
      expect(await record(router, path, id)).toEqual(changed);
    } else {
      expect(await refusal(router, `/${path} disable ${id}`)).toBe("bad command name disable");
    }

    await run(router, `/${path} remove ${id}`);
    expect(await record(router, path, id)).toBeUndefined();
    expect(await refusal(router, `/${path} remove ${id}`)).toBe("no such item");
    expect(await refusal(router, `/${path} set ${id} ${row.set}`)).toBe("no such item");
  });

  it(`refuses a bad value${row.duplicate ? " and a duplicate" : ""}, adding nothing`, async () => {
    const { router, id } = await withItem(path, row);
    await run(router, `/${path} set ${id} ${row.set}`);
    const before = await records(router, path);
    expect(await refusal(router, `/${path} add ${row.invalid.args}`)).toBe(row.invalid.error);
    if (row.duplicate)
      expect(await refusal(router, `/${path} add ${row.duplicate.args}`)).toBe(row.duplicate.error);
    expect(await records(router, path)).toEqual(before);
  });
});

describe.each(Object.entries(fixedRows))("/%s (built-in items only)", (path, row) => {
  const builtIn = async (router: SimulatedRouter) =>
    (await records(router, path)).find((r) => r.name === row.item);

  it("sets, prints, disables and enables a built-in item", async () => {
    const router = freshRouter("lab", { model: row.model });
    const before = await builtIn(router);
    expect(before).toBeDefined();
    await run(router, `/${path} set ${row.item} ${row.set}`);
    const changed = { ...before, ...row.changed };
    expect(await builtIn(router)).toEqual(changed);
    // Switch chips cannot be disabled; ports and services can.
    if (!(before && "disabled" in before)) return;
    await run(router, `/${path} disable ${row.item}`);
    expect(await builtIn(router)).toMatchObject({ disabled: "true" });
    await run(router, `/${path} enable ${row.item}`);
    expect(await builtIn(router)).toEqual(changed);
  });

  it("refuses a bad value, add and remove, changing nothing", async () => {
    const router = freshRouter("lab", { model: row.model });
    const before = await records(router, path);
    expect(await refusal(router, `/${path} set ${row.item} ${row.invalid.args}`)).toBe(row.invalid.error);
    expect(await refusal(router, `/${path} add name=extra`)).toBe("bad command name add");
    expect(await refusal(router, `/${path} remove ${row.item}`)).toBe(row.removeError);
    expect(await refusal(router, `/${path} set nosuch ${row.set}`)).toBe("no such item");
    expect(await records(router, path)).toEqual(before);
  });
});

describe.each(Object.entries(singletonRows))("/%s (one item)", (path, row) => {
  it("sets and prints", async () => {
    const router = freshRouter("lab", row.model ? { model: row.model } : {});
    const [before] = await records(router, path);
    await run(router, `/${path} set ${row.set}`);
    expect(await records(router, path)).toEqual([{ ...before, ...row.changed }]);
  });

  it(`refuses ${row.invalid ? "a bad value, " : ""}add and remove, changing nothing`, async () => {
    const router = freshRouter("lab", row.model ? { model: row.model } : {});
    const before = await records(router, path);
    if (row.invalid)
      expect(await refusal(router, `/${path} set ${row.invalid.args}`)).toBe(row.invalid.error);
    expect(await refusal(router, `/${path} add ${row.set}`)).toBe("bad command name add");
    expect(await refusal(router, `/${path} remove`)).toBe("bad command name remove");
    expect(await records(router, path)).toEqual(before);
  });
});
