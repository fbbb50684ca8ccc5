// `import { startPixd } from 'pixd/testing'` (package.json `exports`): src/testing/index.ts, compiled or
// through tsx like the `pixd` command; its types are src/testing/public.d.ts.
import { loadSource } from './load-source.js';

export const { startPixd } = await loadSource('testing/index');
