/**
 * Files a receiver keeps in its data directory, next to the local CA (`tls-ca.pem`, src/platform/tls/certificates.ts).
 * Kept apart from the server so that `receiver status` can find them without loading fastify or PGlite.
 */
export const RECEIVER_FILES = {
  pathSecret: "receiver-secret",
  readerToken: "reader-token",
  /** Where `receiver status` finds the address of a receiver started on the same data directory. */
  state: "receiver.json",
  database: "receiver-db",
} as const;
