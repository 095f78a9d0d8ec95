// Bundles the `plangate hook` command (dist/adapters/cli/hook-main.js, after
// tsc) into dist/hook/: a hook process starts per tool call, and most of its
// start was Node resolving and loading some 150 modules one by one. Run by
// `npm run build`. Beside the bundle, inputs.json lists every file it was
// made of with its size, modification time and sha256: bin/plangate.js runs
// the bundle only while each is unchanged (src/adapters/cli/hook-bundle.ts),
// so a `tsc` or a dependency installed since is never shadowed by an old
// bundle.
//
// Of the dependencies, those every hook call loads are bundled (pure
// JavaScript: the CLI parser, the policy SDK, canonical JSON, ajv's runtime
// for the generated validators); the rest (better-sqlite3, a native module
// that finds its .node file by its own path; PostgreSQL, telemetry, the
// file watcher, each loaded only when configured) stay where they are,
// imported by name as before. Each module's `import.meta.url` is rewritten to its
// own file's URL relative to the bundle, so paths it resolves from there
// (the policy, the schemas, package.json) stay what they were.
import { build } from 'esbuild';
import { hash } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ROOT } from './opa.mjs';

// `--out DIR`: elsewhere than dist/hook/ (a test compares such a bundle's answers with the modules').
const outAt = process.argv.indexOf('--out');
const OUT = outAt > 0 ? resolve(process.argv[outAt + 1]) : join(ROOT, 'dist', 'hook');
const ENTRY = join(ROOT, 'dist', 'adapters', 'cli', 'hook-main.js');
const DIST = join(ROOT, 'dist') + sep;
/** The packages plangate's own modules import that go into the bundle (with what they import). */
const BUNDLED = new Set(['commander', '@open-policy-agent/opa-wasm', 'canonicalize', 'ajv']);

/** The package a bare specifier names: `@scope/name` or `name`. */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/** A dependency imported by plangate's own code stays outside the bundle unless it is one of BUNDLED. */
const onlyBundled = {
  name: 'only-bundled-dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || !args.importer.startsWith(DIST)) return undefined;
      return BUNDLED.has(packageOf(args.path)) ? undefined : { path: args.path, external: true };
    });
  },
};

/** A path from the bundle's folder, as a relative URL. */
const fromOut = (path) => relative(OUT, path).split(sep).join('/');

/** `import.meta.url` in a bundled module: that module's own URL, found from the bundle's. */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const own = `new URL(${JSON.stringify(fromOut(args.path))}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', own), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * Two modules a hook never uses, which its dependencies require as they
 * load: the policy SDK's YAML parser (for the built-ins yaml.marshal,
 * yaml.unmarshal and yaml.is_valid, which plangate's policy calls none of)
 * and commander's node:child_process (for subcommands that are separate
 * executables; plangate has none). In the bundle each is required on first
 * use instead. The build stops if a file no longer reads as expected (a new
 * version of the dependency: review the rewrite).
 */
const LAZY_REQUIRES = [
  {
    file: /@open-policy-agent\/opa-wasm\/src\/builtins\/yaml\.js$/,
    eager: 'const yaml = require("yaml");',
    lazy: 'let yamlModule; const yaml = { parse: (s) => (yamlModule ??= require("yaml")).parse(s), stringify: (d) => (yamlModule ??= require("yaml")).stringify(d) };',
    uses: /\byaml\.(\w+)\(/g,
    allowed: ['parse', 'stringify'],
  },
  {
    file: /\/commander\/lib\/command\.js$/,
    eager: "const childProcess = require('node:child_process');",
    lazy: "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
    uses: /\bchildProcess\.(\w+)/g,
    allowed: ['spawn'],
  },
];
const lazyRequires = {
  name: 'lazy-requires',
  setup(b) {
    for (const { file, eager, lazy, uses, allowed } of LAZY_REQUIRES) {
      b.onLoad({ filter: file }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        const used = [...text.replace(eager, '').matchAll(uses)].map((m) => m[1]);
        if (text.split(eager).length !== 2 || used.some((name) => !allowed.includes(name))) {
          throw new Error(`${args.path} is not the file its lazy require was made for: review LAZY_REQUIRES in scripts/build-hook-bundle.mjs`);
        }
        return { contents: text.replace(eager, lazy), loader: 'js', resolveDir: dirname(args.path) };
      });
    }
  },
};

/**
 * Node's modules, as plangate's own ES modules import them, taken with
 * process.getBuiltinModule() (Node 22.3 and later) instead of an import
 * statement: importing a built-in module builds its ES module facade, which
 * reads every export once, and for node:fs and node:crypto that loads the
 * streams, fs/promises and webcrypto a hook never uses (about 5 ms a call).
 * The bundle reads the same module object; only the facade is skipped.
 * Dynamic imports (zlib, read only for an OPA bundle) stay as they are.
 */
const builtinsWithoutFacade = {
  name: 'builtins-without-facade',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => (args.kind === 'import-statement' ? { path: args.path, namespace: 'node-builtin' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

rmSync(OUT, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: ROOT,
  entryPoints: { hook: ENTRY },
  outdir: OUT,
  bundle: true,
  splitting: true, // what the hook loads only on some paths (other stores, the audit reader) stays in chunks of its own
  format: 'esm',
  platform: 'node',
  target: 'node22',
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
  // CommonJS dependencies call require() for Node's modules.
  banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
  plugins: [builtinsWithoutFacade, onlyBundled, lazyRequires, ownUrls],
});

/** A file as inputs.json lists it: its path from the bundle's folder, its size and mtime (metafile paths are from ROOT). */
const entry = (path) => {
  const file = resolve(ROOT, path);
  const s = statSync(file);
  return [fromOut(file), s.size, s.mtimeMs, hash('sha256', readFileSync(file))];
};
writeFileSync(join(OUT, 'inputs.json'), `${JSON.stringify({
  entry: 'hook.js',
  inputs: Object.keys(metafile.inputs).filter((path) => !path.startsWith('node-builtin:')).map(entry),
  outputs: Object.keys(metafile.outputs).map(entry),
})}\n`);
