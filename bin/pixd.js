#!/usr/bin/env node
import v8 from 'node:v8';
import { loadSource } from './load-source.js';

// Before any module loads, so that loading them does not grow it: the young generation keeps its first
// size (src/platform/process-footprint.ts says why, and how `pixd start` chooses again).
v8.setFlagsFromString('--semi-space-growth-factor=1');

const { main } = await loadSource('main');
await main(process.argv.slice(2));
