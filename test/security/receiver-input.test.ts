/**
 * Hostile requests against the receiver over real TLS on loopback: guessed and traversing notify paths,
 * smuggling and injected header lines, oversized headers, with the receiver's log captured to check that its
 * path secret and reader token never reach it.
 */
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawTlsRequest } from "../helpers/raw-tls.js";
import { getJobs, newJob, notificationFor, startTestReceiver, tempDir } from "../service/receiver/helpers.js";

describe("hostile input to the receiver", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let receiver: Awaited<ReturnType<typeof startTestReceiver>>;
  let secret: string;
  const log: string[] = [];

  beforeAll(async () => {
    dir = await tempDir();
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log.push(String(chunk));
        done();
      },
    });
    receiver = await startTestReceiver(dir.path, { logger: { level: "trace", stream } });
    secret = new URL(receiver.notifyUrl).pathname.split("/").pop() as string;
  });
  afterAll(async () => {
    await receiver?.close();
    await dir?.remove();
  });

  async function storedIds(): Promise<string[]> {
    const answer = await getJobs(receiver, "limit=100");
    return (answer.body.data as { job_id: string }[]).map((job) => job.job_id);
  }

  it("stores nothing sent to a guessed, traversing or decorated notify path, and answers each with a 4xx", async () => {
    const job = newJob();
    const paths = [
      "/notify/",
      `/notify/..%2Fnotify%2F${secret}`,
      `/notify/${secret}/`,
      `/notify/${secret}%00`,
      `/notify/${secret.slice(0, -1)}`,
      `/notify/${secret}x`,
      `/notify/${secret.toUpperCase()}`,
      `/NOTIFY/${secret}`,
      `/notify/${"a".repeat(5000)}`,
      "/notify/%E0%A4%A",
    ];
    const base = new URL(receiver.notifyUrl).origin;
    const answers: number[] = [];
    for (const path of paths) {
      const answer = await receiver.sender.post(notificationFor(job, "completed"), { url: `${base}${path}` });
      answers.push(answer.status);
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.status, path).toBeLessThan(500);
      expect(answer.body.status, path).toBe("error");
    }
    console.log(
      `receiver: ${paths.length} hostile notify paths answered ${[...new Set(answers)].join(", ")}`,
    );
    // Dot segments are resolved by every client's URL parser, so only a raw request can send them.
    for (const path of [`/notify/x/../${secret}`, `/v1/jobs/../notify/${secret}`, `/notify/./${secret}`]) {
      const answer = await rawTlsRequest(
        receiver.url,
        receiver.sender.ca,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      );
      expect(answer, path).toMatch(/^HTTP\/1\.1 4\d\d/);
    }
    expect(await storedIds()).not.toContain(job.job_id);
  });

  it("refuses smuggling, injected header lines and oversized headers, and stores nothing they carried", async () => {
    const job = newJob();
    const body = JSON.stringify(notificationFor(job, "completed"));
    const head = `POST /notify/${secret} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n`;
    const ca = receiver.sender.ca;
    const attempts: [string, RegExp][] = [
      [
        `${head}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
        /^HTTP\/1\.1 400/,
      ],
      [`${head}X-Note: a\rX-Other: b\r\nContent-Length: ${body.length}\r\n\r\n${body}`, /^HTTP\/1\.1 400/],
      [
        `${head}X-Note: a\r\n X-Folded: b\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        /^HTTP\/1\.1 400/,
      ],
      [
        `${head}X-Big: ${"b".repeat(70_000)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        /^HTTP\/1\.1 431/,
      ],
    ];
    for (const [request, expected] of attempts) {
      expect(await rawTlsRequest(receiver.url, ca, request)).toMatch(expected);
    }
    expect(await storedIds()).not.toContain(job.job_id);
  });

  it("keeps its path secret and reader token out of its log, for accepted and refused requests alike", async () => {
    await receiver.sender.post(notificationFor(newJob(), "running"));
    await receiver.sender.post(notificationFor(newJob(), "running"), {
      url: receiver.notifyUrl.replace(secret, `${secret.slice(0, -1)}Z`),
    });
    await getJobs(receiver, "limit=1");
    await getJobs(receiver, "limit=1", `${receiver.readerToken}x`);
    const text = log.join("");
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(0, -1));
    expect(text).not.toContain(receiver.readerToken);
    // Node's parse errors would carry the raw bytes received (path and headers) as numbers.
    expect(text).not.toContain("rawPacket");
  });
});
