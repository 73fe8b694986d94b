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
    "current-firmware": ROUTEROS_VERSION,
    "upgrade-firmware": ROUTEROS_VERSION,
  };
}

const mib = (value: number) => `${value.toFixed(1)}MiB`;

/** `/system resource`: the model's board, CPU, memory and storage. */
export function resourceValues(model: RouterModel): Record<string, string> {
  return {
    version: `${ROUTEROS_VERSION} (stable)`,
    "factory-software": "7.1",
    // The CHR's figures are those the simulated router has always printed (900 of 1024 MiB free).
    "free-memory": mib((model.memoryMiB * 900) / 1024),
    "total-memory": mib(model.memoryMiB),
    cpu: model.cpu,
    "cpu-count": String(model.cpuCount),
    "cpu-frequency": String(model.cpuMHz),
    "cpu-load": "1",
    "free-hdd-space": mib(model.storageMiB * 0.625),
    "total-hdd-space": mib(model.storageMiB),
    "architecture-name": model.architecture,
    "board-name": model.boardName,
    platform: "MikroTik",
  };
}
