/**
 * What a simulated router is made of: the hardware RouterOS names (ports, radios, serial port, switch chips),
 * what `/system resource` and `/system routerboard` report, the packages it runs, and which of RouterOS's
 * default configurations (defconf) it starts from. The catalog (`boards.ts`) is data of this shape.
 */

/** How RouterOS lists a port: an ethernet port (copper, SFP, combo) in `/interface ethernet`, a radio elsewhere. */
export type PortKind = "ether" | "wifi" | "wireless";

export interface ModelPort {
  /** The port's `default-name`, as RouterOS names it: `ether1`, `sfp-sfpplus1`, `combo1`, `wifi1`, `wlan1`. */
  readonly name: string;
  readonly kind: PortKind;
}

/** One switch chip as `/interface ethernet switch` lists it. */
export interface SwitchChip {
  readonly name: string;
  readonly type: string;
}

/**
 * Which default configuration RouterOS applies to the board (its defconf script's mode):
 * - `none`: no defconf (CHR, x86);
 * - `router`: ether1 is the WAN port (DHCP client, firewall, NAT); the other ports and the radios are bridged
 *   on `bridge` with 192.168.88.1/24, a DHCP server and DNS (home and office routers);
 * - `switch`: every port on `bridge` with 192.168.88.1/24, no firewall and no DHCP (CRS switches);
 * - `ip-only`: 192.168.88.1/24 on ether1 and nothing else (CCR routers).
 */
export type DefaultConfiguration = "none" | "router" | "switch" | "ip-only";

export interface RouterBoardInfo {
  /** What `/system routerboard print` shows as `model` and an export's header as `# model =`. */
  readonly model: string;
}

export interface RouterModel {
  /** The catalog's key: the name `--model` and seeds take (matched without case). */
  readonly name: string;
  /** Other names that choose it: the product code, the name on the box. */
  readonly aliases: readonly string[];
  /** A line for `--help` and docs. */
  readonly description: string;
  /** `/system resource board-name`. */
  readonly boardName: string;
  readonly architecture: "x86_64" | "arm" | "arm64" | "mmips" | "mipsbe";
  readonly cpu: string;
  readonly cpuCount: number;
  readonly cpuMHz: number;
  readonly memoryMiB: number;
  readonly storageMiB: number;
  /** RouterOS packages the board runs out of the box (`routeros` plus the radios' drivers). */
  readonly packages: readonly string[];
  readonly ports: readonly ModelPort[];
  readonly switchChips: readonly SwitchChip[];
  /** Whether `/port` lists `serial0` (a console port or header). */
  readonly serialPort: boolean;
  /** Absent on CHR and x86: they have no `/system routerboard`. */
  readonly routerboard?: RouterBoardInfo;
  readonly defaultConfiguration: DefaultConfiguration;
}
