/**
 * Bundles the CLI into dist/bundle/ (after `tsc` wrote dist/). Terraform starts `routerjobs apply` once per
 * declared script, up to ten at a time on the deploying machine, so its start-up cost is paid a hundred times
 * per fleet deploy: loaded from ~250 files (zod, undici, commander, ours) it costs twice what one bundle does
 * (bench/client.bench.ts measures it). Commands load their heavy parts lazily (`await import`), so the bundle
 * is split at those points and `--version` or `apply` never read the service's code.
 *
 * `routerjobs apply` has an entry of its own (src/cli/startup/apply-main.ts; bin/routerjobs.js routes to it): it loads no
 * commander and no other command; zod's unused locales are left out (below). It is bundled apart, into the one
 * file `apply-main.js` (below), so that it loads only the parts of zod and undici it uses.
 *
 * The service's HTTP server, its PostgreSQL driver and its certificates (fastify, pg, selfsigned) are inside, as
 * devDependencies: a construct user's install does not carry them (docs/packaging.md). Kept out: PGlite, whose
 * WebAssembly and data files sit next to its code (an optional peer: only the embedded database loads it, on a
 * thread of its own), and the frameworks (cdktf, cdktn), which are the user's.
 */
import { createHash } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { build } from "esbuild";

const EXTERNAL = [
  "@electric-sql/pglite",
  // pg's optional native driver, which it requires only when asked for it (the service never does).
  "pg-native",
  "cdktf",
  "cdktn",
  "constructs",
  "@cdktf/provider-null",
  "selfsigned",
  // ssh2's optional native parts, which it requires in a try and does without: bundling ssh2 (pure JavaScript
  // otherwise) keeps it, and its install script, out of a user's install.
  "cpu-features",
  "*.node",
];

// Chunks are named by their hash: each build writes a clean folder (else every build would leave the last
// one's behind, and `npm pack` would ship them all), beside dist/bundle/, swapped in at the end: a CLI started while a build runs (a test beside the build, a
// deploy while a developer rebuilds) finds the old bundle or the new one, never none. The folder is as deep
// as dist/bundle/, so the paths relative to a module hold there too.
const BUNDLE = "dist/bundle";
const NEXT = `dist/bundle-next-${process.pid}`;
await rm(NEXT, { recursive: true, force: true });
/**
 * zod re-exports its 40 locales as `z.locales`; nothing here uses them (English, the default, is imported by
 * zod's schemas directly), yet a namespace import of zod (`await import("zod")`) keeps them all: 575 KB that
 * every process loading zod parsed, a third of what zod cost an apply (issue 20). They become an empty module.
 */
const withoutZodLocales = {
  name: "without-zod-locales",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: "zod-locales", namespace: "empty" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

const common = {
  plugins: [withoutZodLocales],
  outdir: NEXT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  // CommonJS dependencies (commander, undici, ssh2, grpc-js) call require() and read __dirname, which ESM output
  // does not have.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; import { fileURLToPath as __fileURLToPath } from 'node:url'; const require = __createRequire(import.meta.url); const __filename = __fileURLToPath(import.meta.url); const __dirname = __fileURLToPath(new URL('.', import.meta.url));",
  },
  logLevel: "warning",
};

await build({
  ...common,
  // The embedded database's thread (src/service/database/pglite-on-thread.ts) is an entry of its own, beside the chunk
  // that starts it; so is what bin/routerjobs.js reads before it loads any (how a long-running command starts).
  entryPoints: {
    main: "src/cli/main.ts",
    "pglite-thread": "src/service/database/pglite-thread.ts",
    "long-running": "src/cli/startup/long-running.ts",
    // The Terraform provider, which `routerjobs provider install`'s launcher runs: grpc-js and msgpack inside,
    // so that a user's install has no install scripts of theirs (grpc-js's protobufjs has one).
    provider: "src/deploy/provider/main.ts",
  },
  // Chunks next to the entries: dist/bundle/ is as deep as dist/cli/, so paths relative to a module
  // (`../../package.json`) mean the same in both.
  chunkNames: "[name]-[hash]",
  // Without comments: one character beyond Latin-1 in a comment (undici's quotes, an em dash of ours) made V8
  // hold the whole chunk as UTF-16, 1.4 MB of heap for 0.7 MB of undici. Names stay for stack traces.
  minifyWhitespace: true,
});

/**
 * undici's HTTP/2 client requires node:http2 when it loads, and with it Node's whole HTTP/2 stack, though an
 * apply never speaks HTTP/2: undici offers `h2` in ALPN only with `allowH2`, which the HTTP core does not set
 * (src/client/http/request.ts), so a connection is HTTP/1.1 whatever the server prefers. Where node:http2 cannot be
 * loaded undici falls back to `{ constants: {} }` (its own try/catch); the apply build takes that fallback:
 * 1 MiB of peak memory on Node 22 (issue 20).
 */
const withoutHttp2 = {
  name: "without-http2",
  setup(build) {
    build.onResolve({ filter: /^node:http2$/ }, (args) =>
      /[\\/]node_modules[\\/]undici[\\/]/.test(args.importer)
        ? { path: "http2", namespace: "no-http2" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "no-http2" }, () => ({
      contents: 'throw new Error("node:http2 is left out of the routerjobs apply bundle");',
      loader: "js",
    }));
  },
};

/**
 * `routerjobs apply`, in a build of its own. esbuild puts a module that two entries share into a shared chunk
 * whole, with every part that either entry uses: built with the full CLI, apply loaded 395 KB of zod (JSON
 * Schema conversion, codecs, every format the service's routes use) where its own schemas need 220 KB (issue
 * 20). Alone, each module keeps only what apply reaches. The price is a second copy of the shared code in the
 * package (0.6 MB), read only by apply.
 *
 * Two files. The entry, `apply-main.js` (ESM: it reads apply's flags and sets V8's), and apply's modules in one
 * CommonJS file, `apply-body.cjs`, which the entry runs with V8's code for it cached on disk
 * (src/cli/startup/code-cache.ts): V8 caches a script's compiled functions, not an ES module's that Node loads. The
 * body's sha256 is written into the entry, which names its cache by it. One file, not split: the ESM loader
 * resolved, read and linked twenty before (-0.013 s of CPU on Node 20). Its dynamic imports become modules
 * evaluated when first imported, which is all apply needs them for. A warning fails the build: in CommonJS
 * esbuild leaves `import.meta` empty, and only `import.meta.url` is given a value (the file's URL).
 *
 * Whitespace and comments are left out: a comment with one character beyond Latin-1 (an em dash in zod) makes
 * V8 hold the whole file as UTF-16, twice the memory. Names stay, so a stack trace still names its functions.
 * A command line apply does not read goes to the full CLI's own entry, `./main.js`.
 */
const body = await build({
  ...common,
  entryPoints: { "apply-body": "src/cli/startup/apply-body.ts" },
  outExtension: { ".js": ".cjs" },
  plugins: [withoutZodLocales, withoutHttp2],
  splitting: false,
  format: "cjs",
  define: { "import.meta.url": "__import_meta_url" },
  banner: { js: 'var __import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
  minifyWhitespace: true,
  write: false,
});
if (body.warnings.length > 0)
  throw new Error("the apply body's build warned (above): fix it, do not ship it");
const [bodyFile] = body.outputFiles;
await writeFile(bodyFile.path, bodyFile.contents);
const bodySha256 = createHash("sha256").update(bodyFile.contents).digest("hex");

/**
 * The entry's imports of the full CLI and of the body as a module (tsc's output or tsx only) stay imports, of
 * the files beside it in dist/bundle/ (`../main.js` in src/cli/startup/ is `./main.js` there). Inlined, the
 * full CLI made the entry that every apply parses several megabytes.
 */
const applyEntryExternals = {
  name: "apply-entry-externals",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\/(main|apply-body)\.js$/ }, (args) =>
      /apply-main\.ts$/.test(args.importer)
        ? { path: `./${args.path.split("/").at(-1)}`, external: true }
        : undefined,
    );
  },
};
await build({
  ...common,
  entryPoints: ["src/cli/startup/apply-main.ts"],
  plugins: [applyEntryExternals],
  splitting: false,
  define: { APPLY_BODY_SHA256: JSON.stringify(bodySha256) },
  minifyWhitespace: true,
});

/**
 * The constructs as one CommonJS file, `constructs.cjs`, for `require("routerjobs/constructs")` (the `require`
 * condition of its export): the stock `cdktf init` and `cdktn init` projects test with jest, whose module
 * system cannot require an ES module before Node 24.9 ("Must use import to load ES Module"), though Node's own
 * `require` can (ts-node, a plain `require`). Every package stays external, so the app's cdktf or cdktn, zod
 * and constructs are the ones it loads, as from the ES module. A warning fails the build (`import.meta` is
 * empty in CommonJS; `import.meta.url` is given the file's URL, as in the apply body).
 */
const constructs = await build({
  ...common,
  plugins: [],
  entryPoints: { constructs: "src/deploy/constructs/index.ts" },
  outExtension: { ".js": ".cjs" },
  packages: "external",
  splitting: false,
  format: "cjs",
  banner: { js: 'var __import_meta_url = require("node:url").pathToFileURL(__filename).href;' },
  define: { "import.meta.url": "__import_meta_url" },
  write: false,
});
if (constructs.warnings.length > 0)
  throw new Error("the constructs' CommonJS build warned (above): fix it, do not ship it");
for (const file of constructs.outputFiles) await writeFile(file.path, file.contents);

const previous = `dist/bundle-previous-${process.pid}`;
await rename(BUNDLE, previous).catch((error) => {
  if (error.code !== "ENOENT") throw error;
});
await rename(NEXT, BUNDLE);
await rm(previous, { recursive: true, force: true });
