// suite: database-independent
/**
 * pixd as an integrator gets it: the package `npm pack` makes from this tree, installed into a copy of
 * examples/integrator-tests, whose own test suite (the official SDK through `pixd/testing`, in-process and as
 * a `pixd start` child) must pass, and whose test file must typecheck against the package's declared types.
 * Installing takes the dependencies from the npm registry (the machine's npm cache first).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const EXAMPLE = path.join(ROOT, 'examples', 'integrator-tests');
const INSTALL_TIMEOUT_MS = 600_000;
const EXAMPLE_TESTS_TIMEOUT_MS = 300_000;
/** What pixd's own suite can contain and a package must not. */
const NOT_SHIPPED = [/^package\/test\//, /^package\/bench\//, /^package\/docs\/images\//, /^package\/\.ci\//];

/**
 * The npm settings of the `npm test` running this file would leak into the nested npm commands, and node's
 * test runner would take the example's runner for one of its own children (NODE_TEST_CONTEXT).
 */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_TEST_CONTEXT'),
  );
}

async function sh(command: string, args: string[], cwd: string, timeoutMs: number) {
  try {
    return await run(command, args, { cwd, env: cleanEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`,
    );
  }
}

describe('the installable package', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-package-'));
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));
  let tarball = '';

  it('packs without tests, benches, CI or documentation images', async () => {
    const { stdout } = await sh('npm', ['pack', '--json', '--pack-destination', scratch], ROOT, INSTALL_TIMEOUT_MS);
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    tarball = path.join(scratch, packed.filename);
    const files = packed.files.map((f) => `package/${f.path}`);
    assert.deepEqual(
      files.filter((file) => NOT_SHIPPED.some((pattern) => pattern.test(file))),
      [],
    );
    for (const needed of ['bin/pixd.js', 'bin/testing.js', 'src/testing/public.d.ts', 'src/main.ts'])
      assert.ok(files.includes(`package/${needed}`), `${needed} is in the package`);
  });

  it("installs into a project, and that project's tests pass through pixd/testing and the official SDK", async () => {
    assert.ok(tarball, 'packed');
    const project = path.join(scratch, 'project');
    fs.cpSync(EXAMPLE, project, { recursive: true, filter: (from) => !from.includes('node_modules') });
    const manifest = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
    manifest.devDependencies.pixd = `file:${tarball}`;
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify(manifest, null, 2));
    await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], project, INSTALL_TIMEOUT_MS);

    // The example is JavaScript checked by TypeScript: the package's declared types must serve it.
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    await sh(
      tsc,
      [
        '--noEmit',
        '--allowJs',
        '--checkJs',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        '--typeRoots',
        path.join(ROOT, 'node_modules', '@types'),
        ...fs.readdirSync(path.join(project, 'test')).map((file) => path.join('test', file)),
      ],
      project,
      EXAMPLE_TESTS_TIMEOUT_MS,
    );

    const { stdout } = await sh('npm', ['test', '--', '--test-reporter=tap'], project, EXAMPLE_TESTS_TIMEOUT_MS);
    assert.match(stdout, /^# fail 0$/m);
    assert.match(stdout, /^# pass [1-9]\d*$/m);
  });
});
