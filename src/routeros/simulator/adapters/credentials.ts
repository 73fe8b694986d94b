/** Password comparison that takes the same time wherever the first difference is. */
import { createHash, timingSafeEqual } from "node:crypto";

export function constantTimeEqual(given: string, expected: string): boolean {
  // Hashing first makes the lengths equal, which timingSafeEqual requires, without revealing the length.
  const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}
