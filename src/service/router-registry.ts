import type { Queryable } from "../store/database.js";
import { fromJsonb } from "../store/jsonb.js";
import type { RouterBackend } from "./routers/backend.js";

export interface RouterState {
  readonly id: string;
  readonly name: string;
  readonly online: boolean;
  readonly stateVersion: number;
}

/**
 * Keeps the back end's routers in step with the database. The database holds each router's last snapshot and a
 * version; an instance re-attaches a router whenever another instance (or a previous run) saved a newer one, so
 * that several instances on one PostgreSQL share one router configuration.
 */
export class RouterRegistry {
  private readonly versions = new Map<string, number>();
  private readonly online = new Map<string, boolean>();

  constructor(
    readonly backend: RouterBackend,
    private readonly db: Queryable,
  ) {}

  /** Re-attaches the router when the database holds a newer snapshot (read only then: it can be large). */
  async sync(router: RouterState): Promise<void> {
    if (this.versions.get(router.id) !== router.stateVersion) {
      const { rows } = await this.db.query<{ state: unknown }>("SELECT state FROM routers WHERE id = $1", [
        router.id,
      ]);
      const state = fromJsonb(rows[0]?.state);
      await this.backend.attach(router.id, { name: router.name, ...(state == null ? {} : { state }) });
      this.versions.set(router.id, router.stateVersion);
      this.online.delete(router.id);
    }
    if (this.online.get(router.id) !== router.online) {
      this.backend.setOnline?.(router.id, router.online);
      this.online.set(router.id, router.online);
    }
  }

  /** Records that the database now holds `version`, taken from this instance's own back end. */
  saved(routerId: string, version: number): void {
    this.versions.set(routerId, version);
  }

  async detach(routerId: string): Promise<void> {
    this.versions.delete(routerId);
    this.online.delete(routerId);
    await this.backend.detach(routerId);
  }
}
