/**
 * The core does not depend on the sandbox: nothing a production node loads statically (from the `pixd`
 * command down) lives under src/sandbox/, which is only imported dynamically when PIXD_ENV=sandbox, and a
 * production node serves no /sandbox route.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/service.ts';

const SRC = path.resolve('src');
/** Static imports and re-exports; `await import(...)` is deliberately not matched. */
const STATIC_IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gm;

function staticallyReachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(STATIC_IMPORT)) {
      const target = path.resolve(path.dirname(file), match[1]);
      if (target.endsWith('.ts') && fs.existsSync(target)) pending.push(target);
    }
  }
  return seen;
}

describe('boundaries: the core without the sandbox', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ PIXD_ENV: 'production' });
  });
  after(() => svc.close());

  it('loads no sandbox module statically from the command, the runtime or the app', () => {
    // The command parses its line first and loads what a command runs (cli/commands.ts) when it runs.
    const reachable = new Set([
      ...staticallyReachable(path.join(SRC, 'main.ts')),
      ...staticallyReachable(path.join(SRC, 'cli', 'commands.ts')),
    ]);
    assert.ok(reachable.has(path.join(SRC, 'server.ts')), 'the walk follows the imports');
    assert.ok(reachable.size > 100, `the walk covers the tree (${reachable.size} files)`);
    const sandbox = [...reachable].filter((f) => f.startsWith(path.join(SRC, 'sandbox') + path.sep));
    assert.deepEqual(sandbox, []);
  });

  it('serves no sandbox route in production', async () => {
    const token = await svc.demo.token();
    const res = await svc.demo.http.request('GET', '/sandbox/clock', { token });
    assert.equal(res.status, 404, res.text);
  });
});
