import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLocalTls } from "../../../src/platform/tls/certificates.js";
import { openDatabase } from "../../../src/service/database/database.js";
import { buildReceiverApp } from "../../../src/service/receiver/app.js";
import { RECEIVER_FILES } from "../../../src/service/receiver/files.js";
import { NotificationStore } from "../../../src/service/receiver/notification-store.js";
import { Wakeups } from "../../../src/service/receiver/wakeups.js";
import { newJob, notificationFor, tempDir } from "./helpers.js";

// Routing only, through inject: the database is real PGlite, closed under the app to make storage fail.
describe("receiver app when storage fails", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let app: ReturnType<typeof buildReceiverApp>;

  beforeAll(async () => {
    dir = await tempDir();
    const db = await openDatabase({ location: join(dir.path, RECEIVER_FILES.database) });
    const store = await NotificationStore.open(db);
    app = buildReceiverApp({
      store,
      wakeups: new Wakeups(),
      signingKeys: [],
      pathSecrets: ["the-path-secret-0123456789"],
      readerTokens: ["reader-token-0123456789"],
      tls: await generateLocalTls(),
    });
    await db.close();
  });
  afterAll(async () => {
    await app?.close();
    await dir?.remove();
  });

  it("answers 503 (retry later), never a 2xx, when the notification cannot be stored", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/notify/the-path-secret-0123456789",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify(notificationFor(newJob(), "completed")),
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ error: { code: "service_unavailable" } });
  });

  it("still refuses bad input with 4xx while storage is down", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/notify/the-path-secret-0123456789",
      headers: { "content-type": "application/json" },
      payload: "{",
    });
    expect(response.statusCode).toBe(400);
  });
});
