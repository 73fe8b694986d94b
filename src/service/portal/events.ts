import type { OutgoingHttpHeaders } from "node:http";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Fingerprint } from "./fingerprints.js";
import { streamCapReached, teamKey } from "./limits.js";
import { SECURITY_HEADERS } from "./security-headers.js";
import { findSession, type PortalSession } from "./sessions.js";

/**
 * Server-sent events for the open pages (routers, a router, a job): one mechanism for all three. Each stream
 * polls the database for its page's fingerprint (cheap: see `fingerprints.ts`) rather than listening to this
 * instance's scheduler, so a page served by one instance sees jobs run and notifications sent by another. It
 * also re-checks its session: sign-out, expiry or a revoked token end the stream, at once on this instance
 * and within one poll on any other.
 */
export interface LiveStreams {
  /**
   * `since`: the fingerprint the page was rendered at, so that a change before the stream opened is not lost.
   * Throws the portal's 429 (nothing sent yet) when the session or its team holds its cap of open streams.
   */
  open(
    reply: FastifyReply,
    session: PortalSession,
    fingerprint: Fingerprint,
    since: string | undefined,
  ): void;
  /** Ends the streams of one session (sign-out on this instance). */
  endSession(sessionId: string): void;
  endAll(): void;
}

/**
 * Streams are capped per session and per team (config `portalStreamsPerSession`, `portalStreamsPerTeam`): each
 * one polls the store once a second, and thousands from one session slowed every team's calls. Counted in this
 * instance, where their polls cost.
 */
export function liveStreams(app: FastifyInstance, pollMs: number): LiveStreams {
  const streams = new Map<string, Set<() => void>>();
  const openPerTeam = new Map<string, number>();
  return {
    open(reply, session, fingerprintNow, since) {
      const sessionId = session.id;
      const { portalStreamsPerSession, portalStreamsPerTeam } = app.config;
      if ((streams.get(sessionId)?.size ?? 0) >= portalStreamsPerSession) {
        throw streamCapReached(portalStreamsPerSession, "session");
      }
      const team = teamKey(session);
      const teamOpen = openPerTeam.get(team) ?? 0;
      if (teamOpen >= portalStreamsPerTeam) throw streamCapReached(portalStreamsPerTeam, "team");
      openPerTeam.set(team, teamOpen + 1);
      reply.hijack();
      const response = reply.raw;
      // A hijacked reply sends none of the headers set on it: the portal's and the service's are carried over.
      response.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        ...SECURITY_HEADERS,
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        connection: "keep-alive",
        "x-request-id": reply.request.id,
      });
      response.write("retry: 5000\n\n");
      let last = since;
      let timer: NodeJS.Timeout | undefined;
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        streams.get(sessionId)?.delete(end);
        const left = (openPerTeam.get(team) ?? 1) - 1;
        if (left > 0) openPerTeam.set(team, left);
        else openPerTeam.delete(team);
        if (!response.writableEnded) response.end("event: end\ndata: {}\n\n");
      };
      const poll = async () => {
        try {
          if (!(await findSession(app.db, sessionId, new Date()))) return end();
          const fingerprint = await fingerprintNow();
          if (last !== undefined && fingerprint !== last) response.write("event: change\ndata: {}\n\n");
          last = fingerprint;
        } catch (error) {
          app.log.warn({ err: error }, "portal live stream stopped");
          return end();
        }
        if (!ended) timer = setTimeout(poll, pollMs);
      };
      const set = streams.get(sessionId) ?? new Set();
      set.add(end);
      streams.set(sessionId, set);
      response.on("close", end);
      void poll();
    },
    endSession(sessionId) {
      for (const end of [...(streams.get(sessionId) ?? [])]) end();
      streams.delete(sessionId);
    },
    endAll() {
      for (const set of streams.values()) for (const end of [...set]) end();
      streams.clear();
    },
  };
}
