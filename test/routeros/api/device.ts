/** An in-process simulated RouterOS device speaking the API, for the client tests. */
import {
  type CommandHandler,
  type RouterApiServer,
  startRouterApiServer,
} from "../../../src/routeros/api/server.js";
import { certificateFingerprint } from "../../../src/routeros/api/transport.js";
import { apiFrontEnd } from "../../../src/routeros/simulator/adapters/api-front-end.js";
import { selfSignedDeviceCertificate } from "../../../src/routeros/simulator/adapters/device-certificate.js";
import { SimulatedRouter } from "../../../src/routeros/simulator/router.js";

export const USER = "admin";
export const PASSWORD = "pw-Very-Secret-1234";

export interface TestDevice {
  readonly server: RouterApiServer;
  readonly router: SimulatedRouter;
  readonly cert?: string;
  readonly fingerprint?: string;
  /** Every command the handler saw, with its signal (to see a `/cancel` reach it). */
  readonly seen: { path: string; signal: AbortSignal }[];
  logins: number;
}

let certificate: Promise<{ cert: string; key: string }> | undefined;

export async function startDevice(
  options: { tls?: boolean; model?: string; wrap?: (inner: CommandHandler) => CommandHandler } = {},
): Promise<TestDevice> {
  const router = new SimulatedRouter({
    name: "test-router",
    ...(options.model ? { model: options.model } : {}),
  });
  // One certificate for the whole file: generating a key pair per test would only add time.
  if (options.tls && !certificate) certificate = selfSignedDeviceCertificate();
  const tls = options.tls ? await certificate : undefined;
  const inner = apiFrontEnd(router, { pingIntervalMs: 5 });
  const seen: TestDevice["seen"] = [];
  const recording: CommandHandler = (command) => {
    seen.push({ path: command.path, signal: command.signal });
    return inner(command);
  };
  const device: { -readonly [K in keyof TestDevice]: TestDevice[K] } = {
    router,
    seen,
    logins: 0,
  } as TestDevice;
  device.server = await startRouterApiServer({
    ...(tls ? { tls } : {}),
    authenticate: (user, password) => {
      device.logins++;
      return user === USER && password === PASSWORD;
    },
    handler: options.wrap ? options.wrap(recording) : recording,
  });
  if (tls) {
    device.cert = tls.cert;
    device.fingerprint = certificateFingerprint(tls.cert);
  }
  return device;
}
