// suite: database-independent
/** How log lines look: pino-pretty one-liners for a person at a terminal, JSON for everything else. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { loggerOptions } from '../../src/platform/logging.ts';

/** A process that logs through the options `pixd start` would use, as a request and a payment would. */
const LOGS = `
import pino from 'pino';
import { loggerOptions } from './src/platform/logging.ts';
const log = pino(loggerOptions('info', process.argv[1]));
log.info({ reqId: 'req-1', method: 'GET', path: '/v2/cob', route: '/v2/cob', statusCode: 200, responseTimeMs: 1.5 }, 'request');
log.info({ kind: 'pix_recebido', reference: 'E123', accountId: 7, amountCents: 1234 }, 'money moved');
`;

/** An SGR escape sequence (ESC [ … m): what colours a terminal line. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

function run(format: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', LOGS, format],
      { encoding: 'utf8', env: { ...process.env, ...env } },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  );
}

describe('log format', () => {
  it('pretty: one coloured line per event, ISO time, the request folded into its message', async () => {
    const out = await run('pretty', { FORCE_COLOR: '1' });
    const lines = out.trim().split('\n');
    assert.equal(lines.length, 2, out);
    const plain = lines.map((line) => line.replace(ANSI_COLOUR, ''));
    assert.notEqual(lines[0], plain[0], 'coloured');
    assert.match(plain[0], /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] INFO: request GET \/v2\/cob 200 1\.5 ms$/);
    assert.match(plain[1], /INFO: money moved .*"kind":"pix_recebido".*"amountCents":1234/);
  });

  it('json: one object per line with an ISO time', async () => {
    const [line] = (await run('json')).trim().split('\n');
    const parsed = JSON.parse(line);
    assert.equal(parsed.msg, 'request');
    assert.match(parsed.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('auto: pretty on a terminal only; silent: no logger at all', () => {
    assert.ok('transport' in (loggerOptions('info', 'auto', true) as object));
    assert.ok(!('transport' in (loggerOptions('info', 'auto', false) as object)));
    assert.equal(loggerOptions('silent', 'pretty'), false);
  });
});
