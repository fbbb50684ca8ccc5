/**
 * `npm test` runs this first: every test file bundled with the sources it imports into a directory of the
 * run's own under node_modules/.cache/pixd/, so each test process loads a handful of JavaScript files instead of
 * some five hundred TypeScript modules through tsx's loader thread. That load was 1.5 s of every file's 3.7 s
 * of fixed cost on a quiet machine (0.45 s bundled), and the suite's 124 files each pay it on both databases
 * (docs/performance.md, "Session 15: the suite's time").
 *
 * What a test sees does not change: each module keeps its own source file as `import.meta.url` (and
 * `import.meta.dirname`/`filename`), so reads of migrations, XSDs, pages and fixtures, and the child scripts
 * a test starts through tsx, resolve as from the sources; the files share their chunks, so a test and the
 * service it starts see one instance of each module, as under tsx. Packages stay outside the bundle, as
 * installed. Output files are `.mjs`: no package.json above them says "module". Source maps are linked, so
 * a failure's stack and location name the .ts line.
 *
 * Usage: node scripts/test-build.ts <out dir> <test file>... → prints each bundled file, in the order given.
 * scripts/test.sh gives each run its own directory, so two runs in one checkout never overwrite each other's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');

/** `import.meta.url` and its two derivations as code (not inside a string). */
const META = /(?<![\w'"`.])import\.meta\.(url|dirname|filename)\b/g;

/** Each module of the tree keeps its source file's place as its own. */
const sourcePlaces: Plugin = {
  name: 'pixd-source-places',
  setup(bundler) {
    bundler.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = fs.readFileSync(args.path, 'utf8');
      const place = {
        url: JSON.stringify(pathToFileURL(args.path).href),
        dirname: JSON.stringify(path.dirname(args.path)),
        filename: JSON.stringify(args.path),
      };
      return { contents: source.replace(META, (_, which: keyof typeof place) => place[which]), loader: 'ts' };
    });
  },
};

/** The bundled file of each test file under `outDir`, in the order given. */
export async function buildTests(outDir: string, files: string[]): Promise<string[]> {
  await build({
    entryPoints: files.map((file) => path.resolve(ROOT, file)),
    outbase: ROOT,
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: 'chunks/[hash]',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    plugins: [sourcePlaces],
  });
  return files.map((file) => path.join(outDir, path.relative(ROOT, path.resolve(file)).replace(/\.ts$/, '.mjs')));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now();
  const [outDir, ...files] = process.argv.slice(2);
  const bundled = await buildTests(path.resolve(outDir), files);
  process.stdout.write(bundled.map((file) => `${file}\n`).join(''));
  process.stderr.write(
    `== ${bundled.length} test files bundled in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}
