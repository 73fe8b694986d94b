import { describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/service/database/database.js";
import {
  isStorageFull,
  reportStorageFull,
  STORAGE_FULL_REPORT_MS,
  StorageFullReport,
} from "../../../src/service/database/storage-full.js";

/** PostgreSQL raises SQLSTATE 53100 when it cannot extend a file; a DO block raises the same error for real. */
const RAISE_DISK_FULL =
  "DO $$ BEGIN RAISE EXCEPTION 'could not extend file' USING ERRCODE = 'disk_full'; END $$";

describe("isStorageFull", () => {
  it("knows PostgreSQL's disk_full and the system's ENOSPC and EDQUOT, also when wrapped", () => {
    const enospc = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    expect(isStorageFull(Object.assign(new Error("x"), { code: "53100" }))).toBe(true);
    expect(isStorageFull(enospc)).toBe(true);
    expect(isStorageFull(Object.assign(new Error("quota"), { code: "EDQUOT" }))).toBe(true);
    expect(isStorageFull(new Error("wrapped", { cause: enospc }))).toBe(true);
  });

  it("leaves every other failure alone", () => {
    expect(isStorageFull(Object.assign(new Error("deadlock"), { code: "40P01" }))).toBe(false);
    expect(isStorageFull(Object.assign(new Error("denied"), { code: "EACCES" }))).toBe(false);
    expect(isStorageFull(new Error("plain"))).toBe(false);
    expect(isStorageFull("ENOSPC")).toBe(false);
    expect(isStorageFull(undefined)).toBe(false);
  });
});

describe("StorageFullReport", () => {
  it("reports a refusal for 30 s after the last one, naming no file", () => {
    let now = 1_000_000;
    const report = new StorageFullReport(() => now);
    expect(report.current()).toBeUndefined();
    expect(
      report.note(Object.assign(new Error('could not extend file "base/5/16447"'), { code: "53100" })),
    ).toBe(true);
    now += 5_000;
    expect(report.current()).toMatch(/^storage is full: writes are refused \(the last one 5 s ago\)/);
    expect(report.current()).not.toContain("base/5");
    now += STORAGE_FULL_REPORT_MS - 5_000;
    expect(report.current()).toBeDefined();
    now += 1;
    expect(report.current()).toBeUndefined();
  });

  it("ignores failures that are not a full disk", () => {
    const report = new StorageFullReport();
    expect(report.note(new Error("syntax error"))).toBe(false);
    expect(report.current()).toBeUndefined();
  });
});

describe("reportStorageFull", () => {
  it("shows a statement's and a transaction's disk_full to the report and still throws it", async () => {
    const db = await openDatabase({ location: "memory://" });
    try {
      const statements = new StorageFullReport();
      await expect(reportStorageFull(db, statements).query(RAISE_DISK_FULL)).rejects.toMatchObject({
        code: "53100",
      });
      expect(statements.current()).toMatch(/storage is full/);

      const transactions = new StorageFullReport();
      const watched = reportStorageFull(db, transactions);
      await expect(
        watched.transaction(async (tx) => {
          await tx.query("SELECT 1");
          await tx.query(RAISE_DISK_FULL);
        }),
      ).rejects.toMatchObject({ code: "53100" });
      expect(transactions.current()).toMatch(/storage is full/);
      // AND an ordinary failure is not reported as a full disk
      const other = new StorageFullReport();
      await expect(reportStorageFull(db, other).query("SELECT * FROM no_such_table")).rejects.toThrow();
      expect(other.current()).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});
