/**
 * The API's commands that report traffic or hardware and go on until told to stop: `/ping` (and `/tool/ping`),
 * `/interface/monitor-traffic`, `/interface/ethernet/monitor`, `/tool/torch` and `/interface/listen`. They
 * stream one `!re` per interval until `count`, `once` or `duration` ends them or `/cancel` does (the server
 * then answers `!trap =category=2 =message=interrupted` and `!done`, as RouterOS does).
 *
 * No traffic passes through the simulated router, so they answer as a router with nothing to report: counters
 * at zero, links up at their nominal rate, and pings that reach only what the router can see. A ping is
 * answered by the loopback range, the router's own addresses and its ARP neighbours (the hosts it derives on
 * each connected subnet); any other address times out, as an address with no host behind it does.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type ApiCommand, ApiTrap, type HandlerResult } from "../../api/server.js";
import { parseIp } from "../../runtime/ipv4.js";
import { readRouterOsTime } from "../../runtime/values.js";
import type { SimulatedRouter } from "../router.js";

type StreamCommand = (
  router: SimulatedRouter,
  command: ApiCommand,
  intervalMs: number,
) => Promise<HandlerResult>;

const argument = (name: string) => new ApiTrap(`invalid value for argument ${name}`, 1);
const missing = (name: string) => new ApiTrap(`missing value(s) of argument(s) ${name}`, 1);

/** A time argument (`1s`, `200ms`, `00:00:01`, bare seconds); undefined when absent. */
function timeArgument(command: ApiCommand, name: string): number | undefined {
  const text = command.attributes.get(name);
  if (text === undefined) return undefined;
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : readRouterOsTime(text);
  if (ms === undefined || ms <= 0) throw argument(name);
  return ms;
}

function countArgument(command: ApiCommand, name: string): number | undefined {
  const text = command.attributes.get(name);
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw argument(name);
  return Number(text);
}

/**
 * Sends `make(seq)` every `interval` (the command's, or the default) until `count` records were sent (`once` is one; `duration` is as many as
 * fit), or forever until the command's signal aborts.
 */
async function stream(
  command: ApiCommand,
  defaultIntervalMs: number,
  count: number | undefined,
  make: (seq: number) => Readonly<Record<string, string>>,
): Promise<HandlerResult> {
  const intervalMs = timeArgument(command, "interval") ?? defaultIntervalMs;
  const duration = timeArgument(command, "duration");
  const limit = command.attributes.has("once")
    ? 1
    : (count ??
      (duration === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(duration / intervalMs))));
  for (let seq = 0; seq < limit; seq++) {
    if (seq > 0) await sleep(intervalMs, undefined, { signal: command.signal });
    command.record(make(seq));
  }
  return {};
}

/** The interfaces an argument names (a comma list), refused as RouterOS refuses a name it lacks. */
function interfacesNamed(router: SimulatedRouter, text: string | undefined, name: string): string[] {
  if (text === undefined || text === "") throw missing(name);
  const known = new Set(router.table("interface").items.map((item) => item.values.name));
  const names = text.split(",");
  if (names.some((one) => !known.has(one))) throw new ApiTrap(`input does not match any value of ${name}`, 1);
  return names;
}

/** Whether the simulated router gets an answer from `address` (see the header). */
export function answersPing(router: SimulatedRouter, address: string): boolean {
  const ip = parseIp(address);
  if (address === "::1" || (ip !== undefined && ip >>> 24 === 127)) return true;
  const own = router.table("ip-address").items.map((item) => (item.values.address ?? "").split("/")[0]);
  const neighbours = router.table("ip-arp").items.map((item) => item.values.address);
  return own.includes(address) || neighbours.includes(address);
}

const ping: StreamCommand = async (router, command, defaultIntervalMs) => {
  const address = command.attributes.get("address");
  if (!address) throw missing("address");
  if (parseIp(address) === undefined && !address.includes(":")) throw argument("address");
  const count = countArgument(command, "count");
  const size = command.attributes.get("size") ?? "56";
  const reached = answersPing(router, address);
  // The router's own addresses answer at once; a neighbour across a wire in a millisecond.
  const rtt =
    parseIp(address) !== undefined && router.table("ip-arp").items.some((i) => i.values.address === address)
      ? "1ms"
      : "0ms";
  let received = 0;
  return stream(command, defaultIntervalMs, count, (seq) => {
    const sent = seq + 1;
    if (reached) received++;
    const totals = {
      sent: String(sent),
      received: String(received),
      "packet-loss": String(Math.round(((sent - received) * 100) / sent)),
    };
    const reply: Record<string, string> = reached ? { size, ttl: "64", time: rtt } : { status: "timeout" };
    const rtts: Record<string, string> =
      received > 0 ? { "min-rtt": rtt, "avg-rtt": rtt, "max-rtt": rtt } : {};
    return { seq: String(seq), host: address, ...reply, ...totals, ...rtts };
  });
};

const trafficFields = [
  "rx-packets-per-second",
  "rx-bits-per-second",
  "fp-rx-packets-per-second",
  "fp-rx-bits-per-second",
  "rx-drops-per-second",
  "rx-errors-per-second",
  "tx-packets-per-second",
  "tx-bits-per-second",
  "fp-tx-packets-per-second",
  "fp-tx-bits-per-second",
  "tx-drops-per-second",
  "tx-queue-drops-per-second",
  "tx-errors-per-second",
];

const monitorTraffic: StreamCommand = async (router, command, intervalMs) => {
  const names = interfacesNamed(router, command.attributes.get("interface"), "interface");
  const zeros = Object.fromEntries(trafficFields.map((field) => [field, "0"]));
  let seq = 0;
  // One record per interface per interval, as RouterOS gives one section per interface.
  return stream(command, intervalMs, undefined, () => {
    const name = names[seq++ % names.length] ?? "";
    return { name, ...zeros };
  });
};

const ethernetMonitor: StreamCommand = async (router, command, intervalMs) => {
  const names = interfacesNamed(
    router,
    command.attributes.get("numbers") ?? command.attributes.get(".id"),
    "numbers",
  );
  let seq = 0;
  return stream(command, intervalMs, undefined, () => ({
    name: names[seq++ % names.length] ?? "",
    status: "link-ok",
    "auto-negotiation": "done",
    rate: "1Gbps",
    "full-duplex": "true",
    "tx-flow-control": "false",
    "rx-flow-control": "false",
    advertising: "10M-baseT-half,10M-baseT-full,100M-baseT-half,100M-baseT-full,1G-baseT-half,1G-baseT-full",
    "link-partner-advertising": "10M-baseT-half,10M-baseT-full,100M-baseT-half,100M-baseT-full,1G-baseT-full",
  }));
};

const torch: StreamCommand = async (router, command, intervalMs) => {
  interfacesNamed(router, command.attributes.get("interface"), "interface");
  return stream(command, intervalMs, undefined, () => ({
    tx: "0",
    rx: "0",
    "tx-packets": "0",
    "rx-packets": "0",
  }));
};

/** Reports changes to interfaces; nothing changes an interface while it listens, so it sends nothing. */
const listen: StreamCommand = async (_router, command) => {
  await new Promise<void>((resolve) => {
    if (command.signal.aborted) resolve();
    else command.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  return {};
};

export const streamCommands: Readonly<Record<string, StreamCommand>> = {
  "/ping": ping,
  "/tool/ping": ping,
  "/interface/monitor-traffic": monitorTraffic,
  "/interface/ethernet/monitor": ethernetMonitor,
  "/tool/torch": torch,
  "/interface/listen": listen,
};
