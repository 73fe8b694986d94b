/**
 * Run by vitest before each test file (`setupFiles`; again for each file with `isolate: false`): the file's
 * scratch directories (test/helpers/scratch.ts) go once its tests are done. Registered first, this afterAll
 * runs after the file's own, which stop the services and processes that still write in those directories.
 */
import { afterAll } from "vitest";
import { removeScratchDirs } from "./helpers/scratch.js";

afterAll(removeScratchDirs);
