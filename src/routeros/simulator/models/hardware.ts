/**
 * The built-in items a model's hardware gives a reset router: its ethernet ports, radios and serial port, the
 * switch chips, and what `/system resource` and `/system routerboard` report. MAC addresses and the serial
 * number derive from the router's seed text, so two routers differ and one router stays the same.
 */
import { hash32, macFrom } from "../random.js";
import type { RouterModel } from "./types.js";

/** The version `/system resource` and `/system routerboard` report (the catalog's tree is 7.24's). */
export const ROUTEROS_VERSION = "7.24";

/** `/interface ethernet` items: copper, SFP and combo ports alike are `type=ether` on RouterOS. */
export function ethernetPorts(model: RouterModel, seedText: string): Record<string, string>[] {
  return model.ports
    .filter((port) => port.kind === "ether")
    .map((port, index) => ({
      name: port.name,
      "default-name": port.name,
      type: "ether",
      // ether1..ether5 keep the addresses the five-port router has always had.
      "mac-address": macFrom(seedText, "ether", index + 1),
    }));
}

/** `/interface wifi` and `/interface wireless` items (the simulator's interface types `wifi`, `wireless`). */
export function radioPorts(model: RouterModel, seedText: string): Record<string, string>[] {
  return model.ports
    .filter((port) => port.kind !== "ether")
    .map((port) => ({
      name: port.name,
      "default-name": port.name,
      type: port.kind,
      "mac-address": macFrom(seedText, port.kind, port.name),
      // A radio is off until a configuration enables it, as on RouterOS without defconf.
      disabled: "yes",
    }));
}

/** `/port` items: the serial console where the board has one. */
export function serialPorts(model: RouterModel): Record<string, string>[] {
  return model.serialPort ? [{ name: "serial0" }] : [];
}

export function switchChips(model: RouterModel): Record<string, string>[] {
  return model.switchChips.map((chip) => ({ name: chip.name, type: chip.type }));
}

/** A RouterBOARD serial number as RouterOS prints them: eleven upper-case letters and digits. */
function serialNumber(seedText: string, model: string): string {
  const alphabet = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ";
  let text = "";
  for (let i = 0; i < 11; i++) text += alphabet[hash32(seedText, model, "serial", i) % alphabet.length];
  return text;
}

/** `/system routerboard` on a RouterBOARD; undefined on CHR. */
export function routerboardValues(model: RouterModel, seedText: string): Record<string, string> | undefined {
  if (!model.routerboard) return undefined;
  return {
    routerboard: "yes",
    "board-name": model.boardName,
    model: model.routerboard.model,
    "serial-number": serialNumber(seedText, model.name),
    "factory-firmware": "7.1",
    "current-firmware": ROUTEROS_VERSION,
    "upgrade-firmware": ROUTEROS_VERSION,
  };
}

const MIB = 1024 * 1024;

/**
 * When 7.24 was built, as `/system resource` and `/system package` report it. Not the real release's build
 * time, which we do not know: a fixed one, so the figures stay the same from run to run.
 */
export const BUILD_TIME = "2026-11-03 10:21:09";

/**
 * `/system resource` as the API gives it: memory and disk in bytes, counts and MHz as numbers (the console
 * prints the bytes as `225.0MiB`). Uptime is computed apart.
 */
export function resourceValues(model: RouterModel): Record<string, string> {
  return {
    version: `${ROUTEROS_VERSION} (stable)`,
    "build-time": BUILD_TIME,
    "factory-software": "7.1",
    // The CHR's figures are those the simulated router has always printed (900 of 1024 MiB free).
    "free-memory": String(Math.round((model.memoryMiB * 900 * MIB) / 1024)),
    "total-memory": String(model.memoryMiB * MIB),
    cpu: model.cpu,
    "cpu-count": String(model.cpuCount),
    "cpu-frequency": String(model.cpuMHz),
    "cpu-load": "1",
    "free-hdd-space": String(Math.round(model.storageMiB * 0.625 * MIB)),
    "total-hdd-space": String(model.storageMiB * MIB),
    "write-sect-since-reboot": "0",
    "write-sect-total": "0",
    "bad-blocks": "0",
    "architecture-name": model.architecture,
    "board-name": model.boardName,
    platform: "MikroTik",
  };
}

/** Bytes as RouterOS's console prints them: `225.0MiB`, `512.0KiB`. */
export function byteText(value: string): string {
  const bytes = Number(value);
  if (!Number.isFinite(bytes)) return value;
  if (bytes >= 1024 * MIB) return `${(bytes / (1024 * MIB)).toFixed(1)}GiB`;
  if (bytes >= MIB) return `${(bytes / MIB).toFixed(1)}MiB`;
  return `${(bytes / 1024).toFixed(1)}KiB`;
}
