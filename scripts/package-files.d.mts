/** The files of dist/ that `entries` reach through their imports, relative to dist/. */
export function reachedFiles(entries: readonly string[]): string[];
/** Every path in dist/ (outside the bundle) that package.json's `main`, `types` and `exports` name. */
export function exportedEntries(): string[];
