import type { Devices } from "./device.js";
import { json, type Reply } from "./laravel.js";

/** A RouterOS API record: typed values, as the raw reply of API B carries them. */
export type RouterRecord = Record<string, string | number | boolean>;

class CommandError extends Error {}

/** A router's refusal (unknown command, missing script) answered like a validation failure of `command`. */
export function commandReply(render: () => unknown): Reply {
  try {
    return json(200, render());
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    return json(422, { message: error.message, errors: { command: [error.message] } });
  }
}

function fixedTables(siteId: string): Record<string, RouterRecord[]> {
  return {
    "/interface": [
      {
        ".id": "*1",
        name: "ether1",
        type: "ether",
        mtu: 1500,
        "mac-address": "4C:5E:0C:00:00:01",
        running: true,
        disabled: false,
      },
      {
        ".id": "*2",
        name: "ether2",
        type: "ether",
        mtu: 1500,
        "mac-address": "4C:5E:0C:00:00:02",
        running: false,
        disabled: false,
      },
    ],
    "/ip/arp": [
      {
        ".id": "*1",
        address: "192.168.88.10",
        "mac-address": "DC:A6:32:00:00:10",
        interface: "ether2",
        published: false,
        invalid: false,
        DHCP: true,
        dynamic: true,
        complete: true,
        disabled: false,
      },
    ],
    "/system/identity": [{ name: siteId }],
  };
}

/**
 * Runs one synchronous command on a site's fake router. Words are RouterOS API words: `?key=value`
 * filters, `=.proplist=a,b` selects keys. `/execute` with `=script=` applies a script at once.
 */
export function runCommand(
  devices: Devices,
  siteId: string,
  command: string,
  words: string[],
): RouterRecord[] {
  if (command === "/execute") {
    const script = words.find((word) => word.startsWith("=script="))?.slice("=script=".length);
    if (script === undefined) throw new CommandError("missing =script=");
    devices.apply(siteId, { jobId: null, description: "/execute", script, at: Date.now() });
    return [];
  }
  const path = command.replace(/\/(print|getall)$/, "");
  const table = path === "/log" ? devices.log(siteId) : fixedTables(siteId)[path];
  if (!table || path === command) throw new CommandError("no such command prefix");
  let records: RouterRecord[] = table.map((record) => ({ ...record }));
  for (const word of words) {
    const query = /^\?([^=]+)=(.*)$/.exec(word);
    if (query) records = records.filter((record) => String(record[query[1] ?? ""]) === query[2]);
    const proplist = /^=\.proplist=(.*)$/.exec(word);
    if (proplist) {
      const keys = (proplist[1] ?? "").split(",");
      records = records.map((record) =>
        Object.fromEntries(Object.entries(record).filter(([key]) => keys.includes(key))),
      );
    }
  }
  return records;
}

/** API A's view of a record: the spec's keys (`id`, `mac_address`) and every value a string. */
export function specRecord(record: RouterRecord): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [
      key.replace(/^\./, "").replaceAll("-", "_"),
      String(value),
    ]),
  );
}

export function isReadOnly(command: string): boolean {
  return /\/(print|getall)$/.test(command);
}
