/**
 * The notification receiver.
 * 1. Durable notifications accepted per second over HTTPS with concurrent senders (PGlite), against a bare
 *    Fastify HTTPS route that stores nothing, same TLS, same senders, same run.
 * 2. Confirmation latency from posting the terminal notification to a long-poll waiter returning, against a
 *    waiter polling once a second (what `apply` would do without a receiver), both watching the same jobs.
 */
import Fastify from "fastify";
import { Agent, request } from "undici";
import { loadOrCreateLocalTls } from "../src/platform/tls/certificates.js";
import { newJob, notificationFor, startTestReceiver, tempDir } from "../test/service/receiver/helpers.js";
import { type BenchReport, percentile, round } from "./harness.js";

const SENDERS = 16;
const THROUGHPUT_MS = 3000;
const LATENCY_TRIALS = 15;
const POLL_INTERVAL_MS = 1000;

export async function run(): Promise<BenchReport> {
  const dir = await tempDir();
  const receiver = await startTestReceiver(dir.path);
  const bare = await startBareRoute(await loadOrCreateLocalTls(dir.path));
  try {
    const dispatcher = new Agent({ connect: { ca: receiver.sender.ca }, connections: SENDERS });
    const bareRate = await acceptedPerSecond(bare.url, dispatcher);
    const receiverRate = await acceptedPerSecond(receiver.notifyUrl, dispatcher);
    await dispatcher.close();

    const longPoll: number[] = [];
    const polling: number[] = [];
    for (let trial = 0; trial < LATENCY_TRIALS; trial++) {
      const [waited, polled] = await confirmationTrial(receiver);
      longPoll.push(waited);
      polling.push(polled);
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const metrics = {
      sendersConcurrent: SENDERS,
      receiverAcceptedPerSec: round(receiverRate, 0),
      bareRoutePerSec: round(bareRate, 0),
      receiverToBareRatio: round(receiverRate / bareRate, 3),
      longPollMeanMs: round(mean(longPoll), 1),
      longPollP95Ms: round(percentile(longPoll, 95), 1),
      polling1sMeanMs: round(mean(polling), 1),
      polling1sP95Ms: round(percentile(polling, 95), 1),
      pollingToLongPollRatio: round(mean(polling) / mean(longPoll), 1),
    };
    return {
      title: "notification receiver",
      metrics,
      lines: [
        `accepted (durable, PGlite): ${metrics.receiverAcceptedPerSec}/s with ${SENDERS} HTTPS senders; ` +
          `bare HTTPS route ${metrics.bareRoutePerSec}/s; ratio ${metrics.receiverToBareRatio}`,
        `confirmation: long poll mean ${metrics.longPollMeanMs} ms (p95 ${metrics.longPollP95Ms}); ` +
          `1 s polling mean ${metrics.polling1sMeanMs} ms (p95 ${metrics.polling1sP95Ms}); ` +
          `polling is ${metrics.pollingToLongPollRatio}x slower`,
      ],
    };
  } finally {
    await bare.close();
    await receiver.close();
    await dir.remove();
  }
}

/** The receiver's own certificate and raw-body parsing, and nothing else: what HTTPS and Fastify cost. */
async function startBareRoute(tls: { cert: string; key: string }) {
  const app = Fastify({ https: { cert: tls.cert, key: tls.key } });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
    done(null, body),
  );
  app.post("/notify/bare", async () => ({ status: "success" }));
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  return { url: `https://127.0.0.1:${port}/notify/bare`, close: () => app.close() };
}

async function acceptedPerSecond(url: string, dispatcher: Agent): Promise<number> {
  let accepted = 0;
  const deadline = performance.now() + THROUGHPUT_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (performance.now() < deadline) {
        const response = await request(url, {
          method: "POST",
          dispatcher,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(notificationFor(newJob(), "completed")),
        });
        await response.body.dump();
        if (response.statusCode === 200) accepted++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return accepted / seconds;
}

/** One job: a long-poll waiter and a 1 s poller (random phase) watch it; returns both confirmation delays. */
async function confirmationTrial(receiver: Awaited<ReturnType<typeof startTestReceiver>>) {
  const job = newJob();
  await receiver.sender.post(notificationFor(job, "running"));
  const query = `${receiver.url}/v1/jobs?idempotency_key=${job.idempotency_key}`;
  const get = async (suffix: string) => {
    const response = await request(`${query}${suffix}`, {
      dispatcher: receiver.sender.dispatcher,
      headers: { authorization: `Bearer ${receiver.readerToken}` },
    });
    return ((await response.body.json()) as { data: { status: string } }).data.status;
  };
  const longPoll = get("&wait=30s").then(() => performance.now());
  const poller = (async () => {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * POLL_INTERVAL_MS));
    for (;;) {
      if ((await get("")) === "completed") return performance.now();
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 300));
  const terminalAt = performance.now();
  await receiver.sender.post(notificationFor(job, "completed"));
  const [waitedAt, polledAt] = await Promise.all([longPoll, poller]);
  return [waitedAt - terminalAt, polledAt - terminalAt] as const;
}
