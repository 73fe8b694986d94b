/**
 * What a model with its factory defaults costs to create: the 24-port CRS326 and the RB5009 (the longest
 * defconf: bridge, lists, DHCP, DNS and 40 firewall rules) against the default five-port CHR, which has no
 * defconf, in the same run. ratio = time per router of the model / time per default router.
 */
import { SimulatedRouter } from "../src/routeros/simulator/router.js";
import { type BenchReport, opsPerSecond, round } from "./harness.js";

const create = (model?: string) => {
  let n = 0;
  return () => new SimulatedRouter({ ...(model ? { model } : {}), seedText: String(n++) });
};

export async function run(): Promise<BenchReport> {
  // The menus and the catalog are built on first use; every case pays only for its routers after this.
  new SimulatedRouter({ model: "RB5009" });
  const base = await opsPerSecond(create(), 1500, 50);
  const cases = [
    ["crs326", "CRS326-24G-2S+"],
    ["rb5009", "RB5009"],
    ["hapax3", "hAP ax3"],
  ] as const;
  const metrics: Record<string, number> = { defaultMs: round(1000 / base, 4) };
  const lines = [`default model (five-port CHR, no defconf): ${round(1000 / base, 4)} ms per router`];
  for (const [key, model] of cases) {
    const perSec = await opsPerSecond(create(model), 1500, 50);
    const ms = 1000 / perSec;
    metrics[`${key}Ms`] = round(ms, 4);
    metrics[`${key}Ratio`] = round(base / perSec);
    lines.push(
      `${model} with its defaults: ${round(ms, 4)} ms per router, ${round(base / perSec)}x the default`,
    );
  }
  return { title: "simulated router: models with their factory defaults", metrics, lines };
}
