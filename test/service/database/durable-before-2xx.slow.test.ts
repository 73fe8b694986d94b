/**
 * Every acknowledged submission and notification is on stable storage before its 2xx: a real `routerjobs
 * service` and a real `routerjobs receiver`, each on a PGlite data directory, run under strace, and the trace
 * must show an fsync of a data directory file between one answer and the next acknowledgement. Requests go one
 * at a time, and each window starts at the previous answer, so the fsync seen belongs to that request.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { TLS_FILE_NAMES } from "../../../src/platform/tls/certificates.js";
import { newJob, notificationFor, Sender } from "../receiver/helpers.js";
import {
  answersWithoutFsync,
  durabilityEvents,
  straceUnavailable,
  type TracedProcess,
  traceCli,
} from "./strace.js";

const TEAM = "a0000000-0000-4000-8000-000000000001";
const TOKEN = `aa000000-0000-4000-8000-000000000001:${TEAM}:${"A1b2C3d4E5".repeat(6)}xy`;
const ROUTER = "b0000000-0000-4000-8000-000000000001";
const REQUESTS = 20;
const TRACED = ["fsync", "fdatasync", "write", "writev", "sendto", "sendmsg"];

const unavailable = straceUnavailable();
if (unavailable) console.log(`skipping durable-before-2xx: ${unavailable}`);

describe.skipIf(unavailable)("acknowledged only once on disk (strace)", () => {
  let dir: string;
  let traced: TracedProcess | undefined;

  afterEach(async () => {
    await traced?.stop();
    traced = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("the service writes an fsync of its data directory between each async submission and its 202", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "routerjobs-durable-")));
    writeFileSync(
      join(dir, "seed.json"),
      JSON.stringify({ teams: [{ id: TEAM, tokens: [TOKEN], routers: [{ id: ROUTER, name: "edge" }] }] }),
    );
    const service = traceCli(
      ["service", "--listen", "127.0.0.1:0", "--data", join(dir, "data"), "--seed", join(dir, "seed.json")],
      TRACED,
      join(dir, "trace"),
    );
    traced = service;
    const url = await service.printed(/listening on (\S+)/);
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    // A read first: its answer opens the first submission's window, after every fsync of the start-up.
    const list = await request(`${url}/api/routers/${ROUTER}/jobs`, { headers });
    await list.body.dump();
    expect(list.statusCode).toBe(200);
    for (let index = 0; index < REQUESTS; index++) {
      const response = await request(`${url}/api/asynchronous/${ROUTER}`, {
        method: "POST",
        headers,
        body: JSON.stringify({ description: `durable ${index}`, script: "/system identity set name=edge" }),
      });
      await response.body.dump();
      expect(response.statusCode).toBe(202);
    }
    const events = durabilityEvents(await service.stop(), join(dir, "data"));
    const answers = events.flatMap((event, index) => (event === "2xx" ? [index] : []));
    // The seed and the start-up answer nothing over HTTP: these are the read's and the submissions' answers.
    expect(answers).toHaveLength(REQUESTS + 1);
    expect(answersWithoutFsync(events, answers).filter((at) => at !== answers[0])).toEqual([]);
  });

  it("the receiver writes an fsync of its data directory between each notification and its 200", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "routerjobs-durable-")));
    const data = join(dir, "data");
    const receiver = traceCli(
      ["receiver", "--listen", "127.0.0.1:0", "--data", data],
      TRACED,
      join(dir, "trace"),
    );
    traced = receiver;
    const notifyUrl = await receiver.printed(/^notify_url: (\S+)$/m);
    const sender = new Sender(notifyUrl, readFileSync(join(data, TLS_FILE_NAMES.ca), "utf8"));
    try {
      // One request at a time: after the TLS handshake and its session tickets, each TLS record written is an
      // answer (the closing alerts are told apart by their size, see durabilityEvents).
      for (let index = 0; index <= REQUESTS; index++)
        expect((await sender.post(notificationFor(newJob(), "completed"))).status).toBe(200);
    } finally {
      await sender.close();
    }
    const events = durabilityEvents(await receiver.stop(), data);
    // The last REQUESTS + 1 socket writes answer the notifications; the first of them opens the next window.
    const answers = events
      .flatMap((event, index) => (event === "socket" ? [index] : []))
      .slice(-(REQUESTS + 1));
    expect(answers).toHaveLength(REQUESTS + 1);
    expect(answersWithoutFsync(events, answers).filter((at) => at !== answers[0])).toEqual([]);
  });
});
