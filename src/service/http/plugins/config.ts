import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { ServiceConfig } from "../../config.js";

declare module "fastify" {
  interface FastifyInstance {
    config: ServiceConfig;
  }
}

export default fp(
  async function config(app: FastifyInstance, options: { config: ServiceConfig }) {
    app.decorate("config", options.config);
  },
  { name: "config" },
);
