import type { ScriptOutcome } from "../../src/contract/routers/router-backend.js";
import { SimulatedBackend } from "../../src/routeros/simulator/index.js";

/**
 * The simulated routers, where the scripts of the routers in `held` wait for the test to let them go: which
 * script starts next is then the scheduler's choice alone, in the order `started` records.
 */
export class GatedBackend extends SimulatedBackend {
  /** Router ids, in the order their scripts started. */
  readonly started: string[] = [];
  readonly held = new Set<string>();
  private readonly waiting: { routerId: string; release: () => void }[] = [];

  override async runScript(
    routerId: string,
    script: string,
    options?: { signal?: AbortSignal; jobName?: string; resumed?: boolean },
  ): Promise<ScriptOutcome> {
    this.started.push(routerId);
    if (this.held.has(routerId)) {
      await new Promise<void>((release) => this.waiting.push({ routerId, release }));
    }
    return super.runScript(routerId, script, options);
  }

  /** Lets the router's waiting script run; false when none waits. */
  release(routerId: string): boolean {
    const index = this.waiting.findIndex((script) => script.routerId === routerId);
    if (index < 0) return false;
    this.waiting.splice(index, 1)[0]?.release();
    return true;
  }

  releaseAll(): void {
    this.held.clear();
    for (const script of this.waiting.splice(0)) script.release();
  }
}
