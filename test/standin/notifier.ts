import { request } from "node:https";
import { rootCertificates } from "node:tls";
import type { JobEvent } from "./device.js";
import { specNotification } from "./jobs.js";

export interface Delivery {
  jobId: string;
  status: string;
  url: string;
  attempts: number;
  delivered: boolean;
}

const NOTIFIED = new Set(["loaded", "running", "completed", "failed", "deleted"]);

/** Posts job status notifications, unsigned, each on its own (no ordering between them), with retries. */
export class Notifier {
  private readonly sent: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly shape: "minimal" | "spec",
    private readonly retryDelaysMs: number[],
    private readonly ca: string | undefined,
  ) {}

  onJobEvent(event: JobEvent): void {
    const url = event.job.notifyUrl;
    if (url === null || !NOTIFIED.has(event.kind)) return;
    const payload =
      this.shape === "minimal"
        ? { job_id: event.job.id, status: event.kind }
        : specNotification(event.job, event.kind);
    const delivery: Delivery = {
      jobId: event.job.id,
      status: event.kind,
      url,
      attempts: 0,
      delivered: false,
    };
    this.sent.push(delivery);
    const task = this.deliver(delivery, JSON.stringify(payload)).finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  deliveries(): Delivery[] {
    return this.sent.map((delivery) => ({ ...delivery }));
  }

  /** Resolves when every delivery under way has succeeded or run out of attempts. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** For close(): no further attempts, and the ones under way finish instead of being cut off. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }

  private async deliver(delivery: Delivery, body: string): Promise<void> {
    for (let attempt = 0; attempt <= this.retryDelaysMs.length; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, this.retryDelaysMs[attempt - 1]));
      if (this.stopped) return;
      delivery.attempts = attempt + 1;
      if (await this.post(delivery.url, body)) {
        delivery.delivered = true;
        return;
      }
    }
  }

  private post(url: string, body: string): Promise<boolean> {
    return new Promise((resolve) => {
      const req = request(
        url,
        {
          method: "POST",
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          timeout: 5000,
          ...(this.ca ? { ca: [...rootCertificates, this.ca] } : {}),
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300));
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", () => resolve(false));
      req.end(body);
    });
  }
}
