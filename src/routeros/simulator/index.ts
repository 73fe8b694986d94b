/** The simulated RouterOS v7 router: one device (`SimulatedRouter`) and the back end over many of them. */
export { apiCommand } from "./adapters/api-view.js";
export { SimulatedBackend, type SimulatedBackendOptions } from "./adapters/service-backend.js";
export { catalog } from "./catalog.js";
export { SimulatedRouter, type SimulatedRouterOptions } from "./router.js";
export { type RouterSnapshot, routerSnapshotSchema } from "./snapshot.js";
