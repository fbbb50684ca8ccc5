#!/usr/bin/env node
// The package ships TypeScript sources; tsx loads them so `npx pixd` works from a clone with no build step.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/main.ts');
await main(process.argv.slice(2));
