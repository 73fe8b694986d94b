/**
 * zod without its JIT, for `routerjobs apply` (apply-main.ts imports this before any of apply's schemas is
 * built; each object schema reads the setting when it is made). On its first parse zod compiles a parser for
 * each object schema with `new Function`, and probes whether it may (a look at `navigator`, which loads a part
 * of Node for it): that pays in the service, which parses the same shapes all day, not in a process that
 * parses a handful of answers, where the compiled parsers cost peak memory and save no CPU (figures:
 * docs/performance.md). zod's `jitless` setting only changes how it parses, not what it accepts.
 */
import { config } from "zod";

config({ jitless: true });
