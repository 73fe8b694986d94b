import pg from "pg";
import { WAKEUP_CHANNEL } from "./notification-store.js";
import type { Wakeups } from "./wakeups.js";

const RECONNECT_DELAY_MS = 1000;

/**
 * With several receiver instances on one PostgreSQL, a notification may be stored by another instance. Each
 * instance LISTENs on one dedicated connection and forwards the names (job id, idempotency key) to its own waiters. A NOTIFY sent while
 * this connection is down is lost, which is why waiters also re-read the store now and then (`recheckMs`).
 */
export async function listenForWakeups(url: string, wakeups: Wakeups): Promise<{ close(): Promise<void> }> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url });
    const lost = () => {
      if (client !== next) return;
      client = undefined;
      next.end().catch(() => {});
      scheduleReconnect();
    };
    next.on("notification", (message) => {
      if (message.payload) wakeups.notify(message.payload);
    });
    next.on("error", lost);
    next.on("end", lost);
    try {
      await next.connect();
      await next.query(`LISTEN ${WAKEUP_CHANNEL}`);
    } catch (error) {
      next.end().catch(() => {});
      throw error;
    }
    if (stopped) await next.end();
    else client = next;
  }

  function scheduleReconnect(): void {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(scheduleReconnect);
    }, RECONNECT_DELAY_MS);
  }

  await connect();
  return {
    async close() {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
