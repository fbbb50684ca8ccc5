/**
 * How much memory a pixd process keeps resident (issue 18: a server on the embedded database idles at
 * ≤ 200 MiB; measured in docs/performance.md, "Start-up and memory").
 *
 * bin/pixd.js keeps V8's young generation at its first size (1 MiB per semi-space) before any module loads:
 * left alone, loading pixd grows it to 16 MiB per semi-space, which V8 never gives back. Every command but
 * a server is short-lived, so only `pixd start` chooses again, here, once it knows its database:
 * - on PostgreSQL the young generation may grow as V8 would grow it: a busy node allocates fast, and a
 *   larger young generation collects less often;
 * - on the embedded database the process also holds PostgreSQL compiled to WebAssembly, and it is a
 *   sandbox's or a small node's, where memory counts more than CPU: the young generation stays small, and
 *   WebAssembly stays on V8's baseline compiler. Tiering PostgreSQL's hot functions up to the optimizing
 *   compiler kept ~30 MiB more resident for ~10 % less CPU per request.
 * V8 reads both settings when it uses them (the next growth, a module's compilation), so changing them
 * after start-up is safe; the database's module is compiled after this runs.
 */
import v8 from 'node:v8';

/** V8's own default: each growth doubles the young generation, up to 16 MiB per semi-space. */
const DEFAULT_SEMI_SPACE_GROWTH_FACTOR = 2;

export function chooseServerFootprint(database: 'embedded' | 'postgres'): void {
  if (database === 'embedded') v8.setFlagsFromString('--liftoff-only');
  else v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_SEMI_SPACE_GROWTH_FACTOR}`);
}
