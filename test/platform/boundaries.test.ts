// suite: database-independent
/**
 * Every rule docs/architecture.md states about where code lives, checked on the sources: what each layer may
 * import, no import cycle (type-only imports counted), SQL only in stores and table-owning platform modules,
 * topics registered only in src/jobs.ts, no sandbox constant outside src/sandbox/; and the core does not
 * depend on the sandbox: nothing a production node loads statically (from the `pixd` command down) lives under
 * src/sandbox/, which is only imported dynamically when PIXD_ENV=sandbox, and a production node serves no
 * /sandbox route. (Which files write the ledger and outbox tables: test/platform/single-writers.test.ts.)
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/service.ts';
import { importCycles, importGraph, sourceFiles } from '../helpers/sources.ts';

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
    assert.ok(reachable.has(path.join(SRC, 'families.ts')), 'the walk follows the imports');
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

const rel = (file: string) => path.relative(SRC, file);
const graph = importGraph('src');
const edges = [...graph].flatMap(([from, imports]) => imports.map(({ to, dynamic }) => ({ from, to, dynamic })));
const text = (file: string) => fs.readFileSync(file, 'utf8');

type Layer = 'platform' | 'feature' | 'sandbox' | 'app';
/** The layers of docs/architecture.md; src/config.ts (the configuration) counts as platform. */
function layerOf(file: string): Layer {
  const r = rel(file);
  if (r.startsWith('platform/') || r === 'config.ts') return 'platform';
  if (r.startsWith('sandbox/')) return 'sandbox';
  if (/^(main|runtime|jobs|server|families)\.ts$/.test(r) || r.startsWith('cli/') || r.startsWith('testing/'))
    return 'app';
  return 'feature';
}

/** Static imports from a layer to layers it may not import, as `from -> to`. */
const refused = (from: Layer, allowed: Layer[], except: string[] = []) =>
  edges
    .filter((e) => !e.dynamic && layerOf(e.from) === from && !allowed.includes(layerOf(e.to)))
    .map((e) => `${rel(e.from)} -> ${rel(e.to)}`)
    .filter((edge) => !except.includes(edge));

describe('boundaries: what each layer imports', () => {
  it('platform imports only platform (one exception: auth/routes.ts reads applications through accounts/store.ts)', () => {
    assert.deepEqual(refused('platform', ['platform'], ['platform/auth/routes.ts -> accounts/store.ts']), []);
  });

  it('features import features and platform: never the sandbox, never the command, runtime, server or job list', () => {
    assert.deepEqual(refused('feature', ['feature', 'platform']), []);
  });

  it('the sandbox imports features and platform (and itself)', () => {
    assert.deepEqual(refused('sandbox', ['sandbox', 'feature', 'platform']), []);
  });

  it('nothing outside src/sandbox/ imports it statically (the command, runtime and server load it with import())', () => {
    assert.deepEqual(
      edges
        .filter((e) => !e.dynamic && layerOf(e.to) === 'sandbox' && layerOf(e.from) !== 'sandbox')
        .map((e) => `${rel(e.from)} -> ${rel(e.to)}`),
      [],
    );
  });

  it('nothing in src/ imports src/testing/ (pixd/testing is a top, like the command)', () => {
    assert.deepEqual(
      edges
        .filter((e) => rel(e.to).startsWith('testing/') && !rel(e.from).startsWith('testing/'))
        .map((e) => `${rel(e.from)} -> ${rel(e.to)}`),
      [],
    );
  });

  it('no import cycle, type-only and dynamic imports counted', () => {
    assert.ok(edges.length > 1000, `the graph covers the tree (${edges.length} imports)`);
    assert.ok(
      edges.some((e) => rel(e.from) === 'platform/context.ts' && rel(e.to) === 'platform/extensions.ts'),
      'type-only imports are in the graph',
    );
    assert.deepEqual(
      importCycles(graph).map((cycle) => cycle.map(rel)),
      [],
    );
  });
});

/** A string literal that starts an SQL statement (or a clause of one built in pieces). */
const SQL_TEXT =
  /(?:^|[^\w])['`]\s*\(?\s*(?:select\s|insert\s+into\s|update\s+\w+\s+set\s|delete\s+from\s|with\s+(?:recursive\s+)?\w+\s+as\s|create\s+(?:table|index|unique|or|function|view|extension|temp)|alter\s+table|drop\s+(?:table|index|database|function)|lock\s+table|truncate\s|listen\s|notify\s|unlisten\s|set\s+(?:local\s+)?\w+\s*(?:=|to)\s|explain\s|vacuum|analy[sz]e\s|values\s*\(|begin\b|commit\b|rollback\b|savepoint\s)/i;
const holdsSql = (file: string) =>
  text(file)
    .split('\n')
    .some((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && SQL_TEXT.test(line));
const isStore = (file: string) => /(^|\/)([\w-]+-)?store\.ts$/.test(rel(file)) || rel(file).includes('/store/');

/** The platform modules that own tables (docs/architecture.md, "Where SQL lives"). */
const TABLE_OWNERS = [
  'platform/db/',
  'platform/ledger/',
  'platform/outbox/',
  'platform/state.ts',
  'platform/identity.ts',
  'platform/webhooks/attempts.ts',
  'platform/webhooks/inspection.ts',
  'platform/observability.ts',
];
/**
 * Files that held a statement or two of their own before the rule was checked. The list only shrinks: a file
 * leaves it when its statements move to its store, and a file not listed here that gains SQL fails the test.
 */
const SQL_OUTSIDE_STORES = [
  'billing/charges/refunds.ts',
  'billing/charges/service.ts',
  'billing/notifications/service.ts',
  'billing/tokens/keys.ts',
  'pix/charges/rules.ts',
  'pix/dict/confirm.ts',
  'pix/infractions/service.ts',
  'pix/payload/service.ts',
  'pix/payments/engine.ts',
  'pix/payments/holds.ts',
  'pix/received/jobs.ts',
  'pix/webhook/resend.ts',
  'sandbox/clock.ts',
];

describe('boundaries: where SQL lives', () => {
  const withSql = sourceFiles('src').filter(holdsSql);

  it('finds the statements it looks for', () => {
    assert.ok(withSql.some((f) => rel(f) === 'pix/charges/store.ts'));
    assert.ok(withSql.some((f) => rel(f) === 'platform/ledger/ledger.ts'));
  });

  it('SQL only in stores, the table-owning platform modules and the files listed before the rule', () => {
    assert.deepEqual(
      withSql
        .map(rel)
        .filter((r) => !isStore(path.join(SRC, r)) && !TABLE_OWNERS.some((owner) => r.startsWith(owner)))
        .filter((r) => !SQL_OUTSIDE_STORES.includes(r)),
      [],
    );
  });

  it('routes hold no SQL', () => {
    assert.deepEqual(
      withSql.map(rel).filter((r) => /(^|\/)[\w-]*routes\.ts$/.test(r)),
      [],
    );
    assert.ok(!SQL_OUTSIDE_STORES.some((r) => r.includes('routes')));
  });
});

describe('boundaries: jobs', () => {
  const REGISTERS = /\b(?:outbox|webhooks)\.register\(/;
  const DEFINES = /\bdefineTopic\s*[<(]/;

  it('topics are registered on a worker only in src/jobs.ts (the sandbox’s in sandbox/extension.ts)', () => {
    const registering = sourceFiles('src')
      .filter((f) => REGISTERS.test(text(f)))
      .map(rel);
    assert.deepEqual(registering, ['jobs.ts', 'sandbox/extension.ts']);
  });

  it('every module that defines a topic is imported by src/jobs.ts (the sandbox’s by sandbox/extension.ts)', () => {
    const importedBy = (file: string) => new Set(graph.get(path.join(SRC, file))!.map((e) => rel(e.to)));
    const jobs = importedBy('jobs.ts');
    const sandbox = importedBy('sandbox/extension.ts');
    const defining = sourceFiles('src')
      .map(rel)
      .filter((r) => r !== 'platform/outbox/jobs.ts' && DEFINES.test(text(path.join(SRC, r))));
    assert.ok(defining.length > 10, `finds the topics (${defining.length} modules)`);
    assert.deepEqual(
      defining.filter((r) => !(r.startsWith('sandbox/') ? sandbox : jobs).has(r)),
      [],
    );
  });
});

describe('boundaries: sandbox constants', () => {
  /** A limit or constant whose name says sandbox: `LIMITS.cobrSandboxPaidMaxCents`, `SANDBOX_AUTOPAY_TOPIC`. */
  const SANDBOX_CONSTANT = /\bLIMITS\.\w*[sS]andbox\w*|\b[A-Z0-9_]*SANDBOX[A-Z0-9_]*\b|^\s+\w*[sS]andbox\w*\s*:\s*\d/m;
  /** Files that still define or read one, until the SPI boundary work moves the sandbox's rules into src/sandbox/. */
  const NOT_YET_MOVED = [
    'accounts/service.ts',
    'billing/charges/payment.ts',
    'openfinance/participants/store.ts',
    'platform/institution.ts',
    'platform/limits.ts',
    'web/checkout.ts',
  ];

  it('no sandbox constant is defined or read outside src/sandbox/ (but in the files not yet moved)', () => {
    const found = sourceFiles('src')
      .map(rel)
      .filter((r) => !r.startsWith('sandbox/') && SANDBOX_CONSTANT.test(text(path.join(SRC, r))));
    assert.deepEqual(
      found.filter((r) => !NOT_YET_MOVED.includes(r)),
      [],
    );
    assert.ok(SANDBOX_CONSTANT.test(text(path.join(SRC, 'sandbox/settlement.ts'))), 'the pattern finds them');
  });

  /** A label a simulation gives what it does, spelled as a string: `'sandbox_auto'`, `"sandbox_pay"`. */
  const SANDBOX_LABEL = /['"`]sandbox_\w*/;

  it('no label of the sandbox is spelled outside src/sandbox/ (the payer institution names the origin of what it pays)', () => {
    const found = sourceFiles('src')
      .map(rel)
      .filter((r) => !r.startsWith('sandbox/') && SANDBOX_LABEL.test(text(path.join(SRC, r))));
    assert.deepEqual(found, []);
    assert.ok(SANDBOX_LABEL.test(text(path.join(SRC, 'sandbox/payer.ts'))), 'the pattern finds them');
  });
});

describe('boundaries: resource folders and tests', () => {
  it('services are free of HTTP: no service.ts imports Fastify', () => {
    assert.deepEqual(
      sourceFiles('src')
        .filter((f) => path.basename(f) === 'service.ts' && /from '(fastify|@fastify\/[\w-]+)'/.test(text(f)))
        .map(rel),
      [],
    );
  });

  it('tests wait on conditions, not fixed sleeps (a timer that resolves a promise only where a poll or pacing needs one)', () => {
    /** The poll inside waitFor and wallWindowPassed; the template lock's poll and retry; the fault suite's pacing of connection kills. */
    const TIMED = ['helpers/wait.ts', 'helpers/template.ts', 'faults/database-drop.test.ts'];
    const sleeping = sourceFiles('test')
      .filter((f) => /setTimeout\(\s*(resolve|r)\b|timers\/promises/.test(text(f)))
      .map((f) => path.relative(path.resolve('test'), f));
    assert.deepEqual(
      sleeping.filter((f) => !TIMED.includes(f)),
      [],
    );
  });
});
