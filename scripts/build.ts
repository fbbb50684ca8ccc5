/**
 * `npm install` runs this (postinstall; `npm run build` by hand): src/ compiled to JavaScript, file by file, in
 * node_modules/.cache/pixd/build/, so `pixd` starts without loading TypeScript (tsx's loader thread costs about
 * a second of a start and 40 MiB). The tree keeps src/'s layout beside a copy of package.json and a link to
 * node_modules, so every `import.meta.url`-relative read (migrations, pages, package.json) and every package
 * import resolves as from src/. bin/pixd.js uses the build only while its stamp matches src/ (any edit falls
 * back to tsx until the next build).
 */
import fs from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { sourceStamp } from '../bin/source-stamp.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
export const BUILD = path.join(ROOT, 'node_modules', '.cache', 'pixd', 'build');

/** `'./x.ts'` in an import, export or dynamic import becomes `'./x.js'`: the compiled file's name. */
const RELATIVE_TS = /(['"])(\.{1,2}\/[^'"\n]*?)\.ts\1/g;

function build(): number {
  const partial = `${BUILD}.partial`;
  fs.rmSync(partial, { recursive: true, force: true });
  const stamp = sourceStamp(SRC);
  let compiled = 0;
  for (const file of fs.readdirSync(SRC, { recursive: true }).map(String)) {
    const from = path.join(SRC, file);
    if (!fs.statSync(from).isFile()) continue;
    const to = path.join(partial, 'src', file);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (!file.endsWith('.ts')) {
      fs.copyFileSync(from, to);
      continue;
    }
    const { code } = transformSync(fs.readFileSync(from, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcefile: from,
    });
    fs.writeFileSync(to.replace(/\.ts$/, '.js'), code.replace(RELATIVE_TS, '$1$2.js$1'));
    compiled++;
  }
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(partial, 'package.json'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(partial, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(partial, 'stamp'), stamp);
  fs.rmSync(BUILD, { recursive: true, force: true });
  fs.renameSync(partial, BUILD);
  return compiled;
}

const started = performance.now();
try {
  const compiled = build();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`pixd: ${compiled} modules compiled in ${seconds} s (${BUILD})\n`);
} catch (error) {
  // Never fail an install for it: pixd then runs its TypeScript sources through tsx.
  process.stderr.write(`pixd: no compiled build (${(error as Error).message}); pixd will run through tsx\n`);
}
