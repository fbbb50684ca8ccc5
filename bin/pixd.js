#!/usr/bin/env node
// The package ships TypeScript sources. `npm install` compiles them (scripts/build.ts); while that build
// still matches src/, pixd runs it, else tsx loads the sources, so a clone works with or without the build.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { sourceStamp } from './source-stamp.js';

// Before any module loads, so that loading them does not grow it: the young generation keeps its first
// size (src/platform/process-footprint.ts says why, and how `pixd start` chooses again).
v8.setFlagsFromString('--semi-space-growth-factor=1');

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
