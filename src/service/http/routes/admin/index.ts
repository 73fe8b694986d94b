import { timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import * as z from "zod";
import { deviceSchema } from "../../../../contract/device.js";
import { uuidSchema } from "../../../../contract/ids.js";
import { ROUTER_NAME_MAX_CHARS, TEAM_NAME_MAX_CHARS } from "../../../../contract/limits.js";
import { describeEndpoint } from "../../../../contract/routers/device-endpoint.js";
import { textField } from "../../../../contract/text-field.js";
import { RouterjobsError, UsageError } from "../../../../errors.js";
import { bearerToken } from "../../../../platform/http/bearer.js";
import { adminReachableFrom } from "../../../auth/admin-access.js";
import {
  createToken,
  ensureRouter,
  ensureTeam,
  removeRouter,
  revokeToken,
  setRouterOnline,
} from "../../../auth/directory.js";
import { deleteJobTx } from "../../../jobs/lifecycle.js";
import { outboxCounts } from "../../../notifications/outbox.js";
import {
  clearEndpoint,
  endpointFromDevice,
  readStoredEndpoint,
  resealPasswords,
  type StoredEndpoint,
  saveEndpoint,
} from "../../../routers/endpoints.js";
import { serviceKeyring } from "../../../routers/router-secrets.js";
import { applySeed, seedSchema } from "../../../seed.js";
import { HttpError } from "../../http-error.js";

const routerIdParams = z.object({ router_id: uuidSchema });
/** A team's name, given where a team may be created; left out, the team keeps the one it has. */
const teamNameField = textField("team_name", { nonEmpty: true, maxChars: TEAM_NAME_MAX_CHARS });
const ok = <T>(data: T) => ({ status: "success" as const, data });
const notFound = (what: string) => new HttpError("not_found", `${what} does not exist`);
/** `describeEndpoint` reads no password: the stored endpoint (read without the key) is described as it is. */
const described = (stored: StoredEndpoint) => describeEndpoint({ ...stored, password: "" });

/**
 * Operator API for `routerjobs service ...` commands: PGlite allows one process per data directory, so the CLI
 * asks the running service. Bearer admin token (written to <data>/admin-token), loopback callers only unless
 * the service was started with remote admin allowed.
 */
const admin: FastifyPluginAsyncZod = async (app) => {
  const expected = Buffer.from(app.config.adminToken ?? "");
  app.addHook("onRequest", async (request) => {
    if (!adminReachableFrom(app.config, request.socket.remoteAddress)) {
      throw new HttpError("not_found", "the admin API answers loopback callers only");
    }
    const given = Buffer.from(bearerToken(request.headers.authorization) ?? "");
    if (expected.length === 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new HttpError(
        "unauthenticated",
        "the admin API needs the admin token of <data>/admin-token",
        [],
        {
          "www-authenticate": 'Bearer realm="routerjobs-admin"',
        },
      );
    }
  });

  app.post(
    "/tokens",
    {
      schema: {
        body: z.strictObject({
          team_id: uuidSchema,
          customer_id: uuidSchema.optional(),
          team_name: teamNameField.optional(),
        }),
      },
    },
    async (request) => {
      const { team_id: teamId, customer_id: customerId, team_name: name } = request.body;
      const token = await app.db.transaction(async (tx) => {
        await ensureTeam(tx, { id: teamId, name, ...(customerId ? { customerId } : {}) });
        return createToken(tx, teamId);
      });
      return ok({ token, team_id: teamId });
    },
  );
  app.delete(
    "/tokens/:token_id",
    { schema: { params: z.object({ token_id: uuidSchema }) } },
    async (request) => {
      if (!(await revokeToken(app.db, request.params.token_id, new Date()))) throw notFound("token");
      return ok({ token_id: request.params.token_id, revoked: true });
    },
  );

  // The keyring loads on first use: a service without device routers never needs (nor creates) a key file.
  // A key the service cannot use (a key file others can read, a bad ROUTERJOBS_ROUTER_KEY) is the operator's to
  // fix: the answer says what is wrong (never a key), where a 500 would send them to the log.
  const keyring = () =>
    serviceKeyring(app.config).catch((error: unknown) => {
      if (!(error instanceof RouterjobsError)) throw error;
      app.log.error({ err: error }, "router key unusable");
      throw new HttpError("service_unavailable", `router passwords cannot be encrypted: ${error.message}`);
    });

  app.post(
    "/routers",
    {
      schema: {
        body: z.strictObject({
          team_id: uuidSchema,
          id: uuidSchema.optional(),
          name: textField("name", { nonEmpty: true, maxChars: ROUTER_NAME_MAX_CHARS }),
          customer_id: uuidSchema.optional(),
          team_name: teamNameField.optional(),
          device: deviceSchema.optional(),
        }),
      },
    },
    async (request) => {
      const { team_id: teamId, name, customer_id: customerId, team_name: teamName, device } = request.body;
      const id = request.body.id ?? crypto.randomUUID();
      const endpoint = device ? endpointFromDevice(device) : undefined;
      const keys = endpoint ? await keyring() : undefined;
      const added = await app.db.transaction(async (tx) => {
        await ensureTeam(tx, { id: teamId, name: teamName, ...(customerId ? { customerId } : {}) });
        const ensured = await ensureRouter(tx, { id, teamId, name });
        if (ensured && endpoint && keys) await saveEndpoint(tx, id, endpoint, keys);
        return ensured;
      });
      if (!added)
        throw new HttpError("invalid_request", `router ${id} belongs to another team or was removed`);
      // A router already attached keeps its old way in until it is attached again.
      if (endpoint) await app.routers.detach(id);
      return ok({ id, team_id: teamId, name, ...(endpoint ? { device: describeEndpoint(endpoint) } : {}) });
    },
  );
  app.get("/routers/:router_id", { schema: { params: routerIdParams } }, async (request) => {
    const { rows } = await app.db.query<{ id: string; team_id: string; name: string; online: boolean }>(
      "SELECT id, team_id, name, online FROM routers WHERE id = $1 AND removed_at IS NULL",
      [request.params.router_id],
    );
    const router = rows[0];
    if (!router) throw notFound("router");
    const stored = await readStoredEndpoint(app.db, router.id);
    return ok({ ...router, device: stored ? described(stored) : null });
  });
  app.delete("/routers/:router_id/device", { schema: { params: routerIdParams } }, async (request) => {
    if (!(await clearEndpoint(app.db, request.params.router_id))) throw notFound("a router with a device");
    await app.routers.detach(request.params.router_id);
    return ok({ id: request.params.router_id, device: null });
  });
  // Key rotation: after the new key was put first (the old one kept after it), every password moves to it.
  app.post("/router-key/reseal", async () =>
    ok({ resealed: await resealPasswords(app.db, await keyring()) }),
  );
  app.delete("/routers/:router_id", { schema: { params: routerIdParams } }, async (request) => {
    const deleted = await removeRouter(app.db, request.params.router_id, new Date());
    if (!deleted) throw notFound("router");
    await app.routers.detach(request.params.router_id);
    app.notifier.wake();
    return ok({ id: request.params.router_id, deleted_jobs: deleted.length });
  });
  for (const online of [true, false]) {
    app.post(
      `/routers/:router_id/${online ? "online" : "offline"}`,
      { schema: { params: routerIdParams } },
      async (request) => {
        if (!(await setRouterOnline(app.db, request.params.router_id, online))) throw notFound("router");
        if (online) app.scheduler.kick(request.params.router_id);
        return ok({ id: request.params.router_id, online });
      },
    );
  }

  app.delete("/jobs/:job_id", { schema: { params: z.object({ job_id: uuidSchema }) } }, async (request) => {
    const job = await app.db.transaction((tx) => deleteJobTx(tx, request.params.job_id, new Date()));
    if (!job) throw notFound("a job that is not yet completed, failed or deleted with this id");
    app.notifier.wake();
    return ok({ id: job.id, status: job.status });
  });

  app.post("/seed", { schema: { body: seedSchema } }, async (request) => {
    try {
      const result = await applySeed(app.db, request.body, keyring);
      for (const router of result.routers) if (router.device) await app.routers.detach(router.id);
      return ok(result);
    } catch (error) {
      // A seed that conflicts with the database (a router of another team) is bad input, not a fault.
      if (error instanceof UsageError) throw new HttpError("invalid_request", error.message);
      throw error;
    }
  });

  app.get("/status", async () => {
    const { rows } = await app.db.query<{ status: string; count: number }>(
      "SELECT status, count(*)::int AS count FROM jobs GROUP BY status",
    );
    return ok({
      jobs: Object.fromEntries(rows.map((row) => [row.status, row.count])),
      outbox: await outboxCounts(app.db),
    });
  });
};

export default admin;
