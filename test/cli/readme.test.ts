// suite: database-independent
/**
 * The README's first flow pastes verbatim: its first `sh` block under "First steps", run by bash at a
 * directory whose `.pixd` is a running sandbox's data directory (on a free port, not 8443: the flow must read
 * the address from credentials.json), ends with the charge read back paid.
 */
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let cwd: string;

before(async () => {
  svc = await startTestService();
  cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-readme-'));
  fs.symlinkSync(svc.data.dataDir, path.join(cwd, '.pixd'));
  // `npx pixd` at the repository's root finds the package's own bin; here, the same file.
  fs.mkdirSync(path.join(cwd, 'node_modules', '.bin'), { recursive: true });
  fs.symlinkSync(path.resolve('bin/pixd.js'), path.join(cwd, 'node_modules', '.bin', 'pixd'));
});
after(async () => {
  fs.rmSync(cwd, { recursive: true, force: true });
  await svc.close();
});

/** The first fenced `sh` block after the heading. */
function firstShellBlock(markdown: string, heading: string): string {
  const section = markdown.slice(markdown.indexOf(heading));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(match, `a sh block under ${heading}`);
  return match[1];
}

it("the README's first flow, pasted as it is, pays a charge on the sandbox's own port", async () => {
  const flow = firstShellBlock(fs.readFileSync('README.md', 'utf8'), '## First steps');
  assert.doesNotMatch(flow, /8443/, 'no hard-coded port');
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', flow], {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout: 120_000,
  });
  const last = JSON.parse(stdout.slice(stdout.search(/^\{\n {2}"status"/m)));
  assert.equal(last.status, 'CONCLUIDA', stdout);
  assert.equal(last.valor.original, '12.34');
  assert.equal(last.pix.length, 1);
});
