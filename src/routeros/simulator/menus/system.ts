/**
 * `/system identity|clock|ntp client|scheduler|script|script job|backup`, `/system reboot` and
 * `/system reset-configuration` (reset-configuration.ts).
 */

import { RouterOsError } from "../../errors.js";
import type { CommandCall } from "../../language/host.js";
import { formatRouterOsTime } from "../../runtime/values.js";
import {
  BUILD_TIME,
  byteText,
  ROUTEROS_VERSION,
  resourceValues,
  routerboardValues,
} from "../models/hardware.js";
import { DEFAULT_MODEL } from "../models/index.js";
import { RESET_ARGUMENTS, resetConfiguration } from "../reset-configuration.js";
import { scheduleTask } from "../scheduler.js";
import {
  bool,
  commonProps,
  type MenuDef,
  oneOf,
  type PropDef,
  type RouterState,
  str,
  valueText,
} from "../schema.js";
import { targets } from "../verbs.js";

const policies = [
  "ftp",
  "reboot",
  "read",
  "write",
  "policy",
  "test",
  "password",
  "sniff",
  "sensitive",
  "romon",
];
const policy: PropDef = { type: { kind: "enum", values: policies }, list: true, default: policies.join(",") };

const datePart = (at: Date) => at.toISOString().slice(0, 10);
const timePart = (at: Date) => at.toISOString().slice(11, 19);

/** Moves the clock to `date` + `time` (either may be the current one). */
function setClock(router: RouterState, date: string, time: string, argument: string) {
  const at = new Date(`${date}T${time}Z`);
  if (Number.isNaN(at.getTime())) throw new RouterOsError(`invalid value for argument ${argument}`);
  router.setClock(at);
}

function named(call: CommandCall, name: string): string | undefined {
  const value = call.named.get(name);
  return value === undefined ? undefined : valueText(value);
}

const readOnlyText = (fallback?: string): PropDef => ({
  type: { kind: "string" },
  readOnly: true,
  ...(fallback === undefined ? {} : { default: fallback }),
});

/** What `/system resource print` shows: the model's figures (a small CHR's by default). */
const resource = resourceValues(DEFAULT_MODEL);

const bytes = new Set(["free-memory", "total-memory", "free-hdd-space", "total-hdd-space"]);
const counts = new Set([
  "cpu-count",
  "cpu-frequency",
  "cpu-load",
  "write-sect-since-reboot",
  "write-sect-total",
  "bad-blocks",
]);

/** A `/system resource` property: numbers typed (`get` answers a number), bytes in the console's words. */
function resourceProperty(name: string, value: string): PropDef {
  if (!bytes.has(name) && !counts.has(name)) return readOnlyText(value);
  return {
    type: { kind: "int", min: 0, max: Number.MAX_SAFE_INTEGER },
    readOnly: true,
    default: value,
    ...(bytes.has(name) ? { consoleText: byteText } : {}),
  };
}

/** What `/system routerboard print` shows on a RouterBOARD. */
const routerboard = [
  "routerboard",
  "board-name",
  "model",
  "serial-number",
  "factory-firmware",
  "current-firmware",
  "upgrade-firmware",
];

export const systemMenus: readonly MenuDef[] = [
  {
    path: ["system", "resource"],
    table: "system-resource",
    singleton: true,
    exported: false,
    virtual: {
      // Whole seconds since the router booted, as RouterOS gives them (`6d4h40m57s`).
      uptime: {
        get: (router) => formatRouterOsTime(Math.floor(router.uptimeMs() / 1000) * 1000),
        set: () => {
          throw new RouterOsError("failure: uptime is read-only");
        },
      },
    },
    builtins: (router) => [resourceValues(router.model)],
    properties: Object.fromEntries(
      Object.entries(resource).map(([name, value]) => [name, resourceProperty(name, value)]),
    ),
  },
  {
    // Only RouterBOARDs have it (the 7.24 tree, read from a CHR, does not); it reports, nothing is written.
    path: ["system", "routerboard"],
    table: "system-routerboard",
    singleton: true,
    exported: false,
    requires: (router) => router.model.routerboard !== undefined,
    builtins: (router) => {
      const values = routerboardValues(router.model, router.seedText);
      return values ? [values] : [];
    },
    properties: {
      ...Object.fromEntries(routerboard.map((name) => [name, readOnlyText()])),
      routerboard: { type: { kind: "bool" }, readOnly: true },
    },
  },
  {
    // The RouterBOOT settings of a RouterBOARD, at RouterOS's documented defaults; nothing here boots.
    path: ["system", "routerboard", "settings"],
    table: "system-routerboard-settings",
    singleton: true,
    requires: (router) => router.model.routerboard !== undefined,
    properties: {
      "auto-upgrade": bool("no"),
      "baud-rate": { type: { kind: "int", min: 1200, max: 115200 }, default: "115200" },
      "boot-delay": { type: { kind: "time" }, default: "2s" },
      "boot-device": oneOf(
        [
          "ethernet",
          "flash-boot",
          "flash-boot-once-then-nand",
          "nand-if-fail-then-ethernet",
          "nand-only",
          "try-ethernet-once-then-nand",
        ],
        "nand-if-fail-then-ethernet",
      ),
      "boot-protocol": oneOf(["bootp", "dhcp"], "bootp"),
      "enter-setup-on": oneOf(["any-key", "delete-key"], "any-key"),
      "force-backup-booter": bool("no"),
      "protected-routerboot": oneOf(["disabled", "enabled"], "disabled"),
      "reformat-hold-button": { type: { kind: "time" }, default: "20s" },
      "reformat-hold-button-max": { type: { kind: "time" }, default: "10m" },
      "silent-boot": bool("no"),
    },
  },
  {
    // The model's packages, as installed out of the box; nothing here installs or removes one.
    path: ["system", "package"],
    table: "system-package",
    exported: false,
    canAdd: false,
    canRemove: false,
    key: "name",
    columns: ["name", "version", "build-time"],
    builtins: (router) =>
      router.model.packages.map((name) => ({ name, version: ROUTEROS_VERSION, "build-time": BUILD_TIME })),
    properties: {
      name: readOnlyText(),
      version: readOnlyText(),
      "build-time": readOnlyText(),
      scheduled: readOnlyText(""),
      disabled: { type: { kind: "bool" }, default: "no", readOnly: true },
    },
  },
  {
    path: ["system"],
    table: "system",
    singleton: true,
    exported: false,
    properties: {},
    verbs: {
      reboot: {
        arguments: [],
        run: (_call, router) => {
          router.requestReboot();
          return {};
        },
      },
      "reset-configuration": { arguments: RESET_ARGUMENTS, run: resetConfiguration },
    },
  },
  {
    path: ["system", "identity"],
    table: "system-identity",
    singleton: true,
    properties: { name: str("MikroTik") },
  },
  {
    path: ["system", "clock"],
    table: "system-clock",
    singleton: true,
    virtual: {
      time: {
        get: (router) => timePart(router.now()),
        set: (router, value) => setClock(router, datePart(router.now()), value.padStart(8, "0"), "time"),
      },
      date: {
        get: (router) => datePart(router.now()),
        set: (router, value) => setClock(router, value, timePart(router.now()), "date"),
      },
    },
    properties: {
      "time-zone-autodetect": bool("yes"),
      "time-zone-name": str("manual"),
    },
  },
  {
    path: ["system", "ntp", "client"],
    table: "system-ntp-client",
    singleton: true,
    properties: {
      enabled: bool("no"),
      mode: oneOf(["broadcast", "manycast", "multicast", "unicast"], "unicast"),
      servers: { type: { kind: "host" }, list: true },
      vrf: str("main"),
    },
  },
  {
    path: ["system", "scheduler"],
    table: "system-scheduler",
    key: "name",
    columns: ["name", "start-date", "start-time", "interval"],
    unique: [{ keys: ["name"], error: "failure: already have such name" }],
    // RouterOS stamps a new task with the clock at creation; export then carries both values.
    complete: (values, router) => {
      values["start-date"] ??= datePart(router.now());
      values["start-time"] ??= timePart(router.now());
      scheduleTask(values, router);
    },
    properties: {
      name: { type: { kind: "string" }, required: true },
      "start-date": str(),
      "start-time": str(),
      interval: { type: { kind: "time" }, default: "0s" },
      "on-event": str(),
      "next-run": readOnlyText(),
      "run-count": readOnlyText("0"),
      policy,
      ...commonProps,
    },
  },
  {
    path: ["system", "script"],
    table: "system-script",
    key: "name",
    autoName: "script",
    columns: ["name", "owner", "source"],
    unique: [{ keys: ["name"], error: "failure: already have such name" }],
    verbs: {
      run: {
        arguments: ["numbers"],
        run: async (call, router, menu) => {
          const item = targets(call, router, menu)[0];
          if (!item) throw new RouterOsError("no such item");
          return { output: await router.runSource(item.values.source ?? "") };
        },
      },
    },
    properties: {
      name: { type: { kind: "string" }, required: true },
      owner: str("admin"),
      source: str(),
      policy,
      "dont-require-permissions": bool("no"),
      comment: commonProps.comment,
    },
  },
  {
    // Scripts running in the background (`:execute`); the router adds and removes the items itself.
    path: ["system", "script", "job"],
    table: "system-script-job",
    exported: false,
    canAdd: false,
    columns: ["script", "owner", "started", "type"],
    verbs: {
      remove: {
        arguments: ["numbers"],
        run: (call, router, menu) => {
          for (const item of targets(call, router, menu)) router.stopJob(item.id);
          return {};
        },
      },
    },
    properties: {
      script: { type: { kind: "string" }, readOnly: true },
      owner: { type: { kind: "string" }, readOnly: true },
      started: { type: { kind: "string" }, readOnly: true },
      type: { type: { kind: "string" }, readOnly: true },
    },
  },
  {
    path: ["system", "backup"],
    table: "system-backup",
    singleton: true,
    exported: false,
    properties: {},
    // A backup is never encrypted here; the password arguments are taken (scripts pass them) and ignored.
    verbs: {
      save: {
        arguments: ["name", "password", "dont-encrypt", "encryption"],
        run: (call, router) => {
          const name =
            named(call, "name") ??
            `${router.table("system-identity").items[0]?.values.name ?? "MikroTik"}-backup`;
          router.saveBackup(name);
          return { output: ["Configuration backup saved"] };
        },
      },
      load: {
        arguments: ["name", "password"],
        run: (call, router) => {
          const name = named(call, "name");
          if (name === undefined) throw new RouterOsError("missing value(s) of argument(s) name");
          router.loadBackup(name);
          router.requestReboot();
          return { output: ["configuration restored, rebooting"] };
        },
      },
    },
  },
];
