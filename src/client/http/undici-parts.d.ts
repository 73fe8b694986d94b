/** Types of the undici modules loaded directly, not through its index (src/client/http/request.ts says why). */
declare module "undici/lib/dispatcher/pool.js" {
  import { Pool } from "undici";
  export default Pool;
}

declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  /** Dispatcher#request, called with the dispatcher as `this`. */
  export default function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}
