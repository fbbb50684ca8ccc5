// The package ships TypeScript sources. `npm install` bundles them (scripts/build.ts); while that build
// still matches src/, a module is loaded from it, else tsx loads the sources, so a clone works with or
// without the build. Plain JavaScript: it runs before anything can load TypeScript.
import fs from 'node:fs';
import path from 'node:path';
import { sourceStamp } from './source-stamp.js';

const root = path.resolve(import.meta.dirname, '..');
const build = path.join(root, 'node_modules', '.cache', 'pixd', 'build');

/** The modules of src/ that are loaded through here, and their bundles' names (build/src/bundle/<name>.js). */
export const BUNDLE_ENTRIES = { main: 'main', 'testing/index': 'testing' };

let fresh;
let registered;
/** `src/<name>.ts` of this package (one of BUNDLE_ENTRIES), bundled or through tsx. */
export async function loadSource(name) {
  const stampFile = path.join(build, 'stamp');
  fresh ??= fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === sourceStamp(path.join(root, 'src'));
  if (fresh) return import(path.join(build, 'src', 'bundle', `${BUNDLE_ENTRIES[name]}.js`));
  registered ??= import('tsx/esm/api').then(({ register }) => register());
  await registered;
  return import(path.join(root, 'src', `${name}.ts`));
}
