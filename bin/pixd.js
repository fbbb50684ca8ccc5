#!/usr/bin/env node
// The package ships TypeScript sources. `npm install` compiles them (scripts/build.ts); while that build
// still matches src/, pixd runs it, else tsx loads the sources, so a clone works with or without the build.
import fs from 'node:fs';
import path from 'node:path';
import { sourceStamp } from './source-stamp.js';

const root = path.resolve(import.meta.dirname, '..');
const build = path.join(root, 'node_modules', '.cache', 'pixd', 'build');
const stampFile = path.join(build, 'stamp');
const fresh = fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === sourceStamp(path.join(root, 'src'));
let main;
if (fresh) ({ main } = await import(path.join(build, 'src', 'main.js')));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
await main(process.argv.slice(2));
