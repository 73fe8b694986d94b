import type { RouterBackend } from "../../src/contract/routers/router-backend.js";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";

/** The back end every service test runs against: the simulated RouterOS router. */
export function newBackend(): RouterBackend {
  return new SimulatedBackend({ seed: 7 });
}
