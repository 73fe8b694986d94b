import { SimulatedBackend } from "../../src/routeros/simulator/index.js";
import type { RouterBackend } from "../../src/service/routers/backend.js";

/** The back end every service test runs against: the simulated RouterOS router. */
export function newBackend(): RouterBackend {
  return new SimulatedBackend({ seed: 7 });
}
