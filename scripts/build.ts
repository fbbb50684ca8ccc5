/**
 * `npm install` runs this (postinstall; `npm run build` by hand): src/ bundled into JavaScript in
 * node_modules/.cache/pixd/build/, so `pixd` starts without loading TypeScript (tsx's loader thread costs about
 * a second of a start and 40 MiB) and without resolving, reading and linking some four hundred ES modules one
 * by one (about 0.15 s of a `pixd start` child's CPU before its first request: docs/performance.md, "pixd in
 * an integrator's suite").
 *
 * The tree: build/src holds src/'s files that are not code (migrations, pages, XSDs, the console's assets),
 * at their places; build/src/bundle the code, one file per entry point (`pixd`, `pixd/testing`) and the
 * chunks they share or load on demand (every `import()` of src/ stays lazy). Each module's `import.meta.url`
 * is rewritten to the URL its compiled file would have in build/src, so every `import.meta.url`-relative read
 * resolves as from src/; packages but BUNDLED_PACKAGES stay outside the bundle and resolve through
 * build/node_modules, a link to the package's node_modules. bin/load-source.js uses the build only while its stamp matches src/ (any edit
 * falls back to tsx until the next build).
 */
import fs from 'node:fs';
import path from 'node:path';
import { build as bundle, type Plugin } from 'esbuild';
import { sourceStamp } from '../bin/source-stamp.js';
import { BUNDLE_ENTRIES } from '../bin/load-source.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
export const BUILD = path.join(ROOT, 'node_modules', '.cache', 'pixd', 'build');

/**
 * Packages bundled with pixd's own code instead of loaded from node_modules: pure JavaScript in many small ES
 * modules, each of which Node's loader would otherwise find, read and link one by one (TypeBox's alone are two
 * hundred files). Every other package stays outside the bundle, as installed: some read files beside their own
 * (PGlite, pdfkit, swagger-ui), some are CommonJS that a bundle would wrap for nothing.
 */
const BUNDLED_PACKAGES = new Set(['@sinclair/typebox', 'jose', 'fast-xml-parser']);

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Packages imported by src/ stay external, but BUNDLED_PACKAGES (and what they import in turn). */
const installedPackages: Plugin = {
  name: 'pixd-installed-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (!args.importer.startsWith(SRC + path.sep) || BUNDLED_PACKAGES.has(packageName(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** `import.meta.url` as code (not inside a string, as web/routes.ts writes it into the payment library). */
const META_URL = /(?<![\w'"`.])import\.meta\.url\b/g;
/** Rewritten by nothing: a module's directory is `new URL('.', import.meta.url)`. */
const META_PATHS = /(?<![\w'"`.])import\.meta\.(dirname|filename)\b/;

/** Each module of src/ keeps, as its `import.meta.url`, the place of its own file under build/src. */
function ownUrls(bundleDir: string, srcOut: string): Plugin {
  return {
    name: 'pixd-own-urls',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = fs.readFileSync(args.path, 'utf8');
        const relative = path.relative(SRC, args.path);
        if (relative.startsWith('..')) return undefined;
        if (META_PATHS.test(source))
          throw new Error(`${relative}: use import.meta.url (bundled modules have their own URL rewritten)`);
        const own = path.relative(bundleDir, path.join(srcOut, relative.replace(/\.ts$/, '.js')));
        const url = `new URL(${JSON.stringify(own.split(path.sep).join('/'))}, import.meta.url).href`;
        return { contents: source.replace(META_URL, url), loader: 'ts' };
      });
    },
  };
}

async function build(): Promise<number> {
  const partial = `${BUILD}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  const stamp = sourceStamp(SRC);
  const srcOut = path.join(partial, 'src');
  for (const file of fs.readdirSync(SRC, { recursive: true }).map(String)) {
    const from = path.join(SRC, file);
    if (file.endsWith('.ts') || !fs.statSync(from).isFile()) continue;
    fs.mkdirSync(path.dirname(path.join(srcOut, file)), { recursive: true });
    fs.copyFileSync(from, path.join(srcOut, file));
  }
  const bundleDir = path.join(srcOut, 'bundle');
  const result = await bundle({
    entryPoints: Object.fromEntries(
      Object.entries(BUNDLE_ENTRIES).map(([source, name]) => [name, path.join(SRC, `${source}.ts`)]),
    ),
    outdir: bundleDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    logLevel: 'error',
    plugins: [installedPackages, ownUrls(bundleDir, srcOut)],
  });
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(partial, 'package.json'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(partial, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(partial, 'stamp'), stamp);
  fs.rmSync(BUILD, { recursive: true, force: true });
  fs.renameSync(partial, BUILD);
  return Object.keys(result.metafile.inputs).filter((input) => input.endsWith('.ts')).length;
}

const started = performance.now();
try {
  const bundled = await build();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`pixd: ${bundled} modules bundled in ${seconds} s (${BUILD})\n`);
} catch (error) {
  // Never fail an install for it: pixd then runs its TypeScript sources through tsx.
  process.stderr.write(`pixd: no compiled build (${(error as Error).message}); pixd will run through tsx\n`);
}
