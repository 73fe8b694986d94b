/** `/user`, `/snmp` and `/log`. */
import { RouterOsError } from "../../errors.js";
import type { ItemProperties } from "../../language/host.js";
import { pick } from "../print.js";
import {
  bool,
  type CustomVerb,
  commonProps,
  int,
  type MenuDef,
  oneOf,
  type RouterState,
  str,
  type VerbHandler,
  valueText,
} from "../schema.js";

const logRecord = (entry: RouterState["logEntries"][number]): ItemProperties => ({
  ".id": `*${entry.id.toString(16).toUpperCase()}`,
  time: entry.time,
  topics: entry.topics,
  message: entry.message,
});

const printLog: VerbHandler = (call, router) => {
  const entries = router.logEntries.map(logRecord).filter((record) => !call.where || call.where(record));
  const proplist = call.named.get("proplist");
  const keep = proplist === undefined ? undefined : valueText(proplist).split(",");
  const records = entries.map((record) => pick(record, keep));
  if (call.named.has("count-only"))
    return { value: entries.length, output: [String(entries.length)], records };
  return { output: entries.map((r) => `${r.time} ${r.topics} ${r.message}`), records };
};

/** `/log info "text"` and friends write with topics `script,<level>`, as RouterOS does. */
const logAt = (level: string): CustomVerb => ({
  arguments: ["message"],
  run: (call, router) => {
    const message = call.positional[0] ?? call.named.get("message");
    if (message === undefined) throw new RouterOsError("missing value(s) of argument(s) message");
    router.log(["script", level], valueText(message));
    return {};
  },
});

export const managementMenus: readonly MenuDef[] = [
  {
    // Not exported: an export holds no passwords, so users travel in backups only (as on RouterOS).
    path: ["user"],
    table: "user",
    key: "name",
    exported: false,
    columns: ["name", "group", "address"],
    unique: [{ keys: ["name"], error: "failure: user with the same name already exists" }],
    properties: {
      name: { type: { kind: "string" }, required: true },
      group: { ...oneOf(["full", "read", "write"]), required: true },
      password: { type: { kind: "string" }, sensitive: true },
      address: { type: { kind: "ip-prefix" }, list: true },
      ...commonProps,
    },
  },
  {
    path: ["snmp"],
    table: "snmp",
    singleton: true,
    properties: {
      enabled: bool("no"),
      contact: str(),
      location: str(),
      "trap-community": str("public"),
      "trap-version": int(1, 3, 1),
      "engine-id-suffix": str(),
    },
  },
  {
    path: ["log"],
    table: "log",
    singleton: true,
    exported: false,
    properties: {},
    verbs: {
      // The layout flags are taken and change nothing: the log prints one form.
      print: {
        arguments: ["where", "proplist", "count-only", "detail", "terse", "without-paging"],
        run: printLog,
      },
      info: logAt("info"),
      warning: logAt("warning"),
      error: logAt("error"),
      debug: logAt("debug"),
    },
  },
];
