/**
 * The `pixd` command as a person meets it: help, version, refusals with a suggestion, and account create
 * against a running server (through its operator API), each run as a real child process.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HttpsClient } from '../helpers/https-client.ts';
import { runPixd } from '../helpers/cli.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('pixd command line', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-cli-'));
  /** A data directory no command may create: help and refusals never get as far as starting anything. */
  const untouched = path.join(scratch, 'never-created');
  const pixd = (...args: string[]) => runPixd(args, { PIXD_DATA_DIR: untouched, LOG_LEVEL: 'silent' });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('prints help and the version, and exits 0', async () => {
    const version = JSON.parse(fs.readFileSync('package.json', 'utf8')).version as string;
    for (const args of [[], ['--help'], ['help'], ['start', '--help'], ['account', 'create', '--help']]) {
      const run = await pixd(...args);
      assert.equal(run.status, 0, `pixd ${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, /^Usage: pixd/, `pixd ${args.join(' ')}`);
    }
    const bare = await pixd();
    assert.match(bare.stdout, /Commands:[\s\S]*start[\s\S]*account/, 'pixd alone lists the commands');
    assert.match(
      (await pixd('account', 'create', '--help')).stdout,
      /--scopes[\s\S]*--data-dir/,
      'own and global flags',
    );
    const printed = await pixd('--version');
    assert.equal(printed.status, 0);
    assert.equal(printed.stdout.trim(), version);
    assert.equal(fs.existsSync(untouched), false, 'no command above started a server');
  });

  it('refuses unknown commands and flags with a suggestion, starting nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['start', '--prot', '9000'], /unknown option '--prot'[\s\S]*Did you mean --port\?/],
      [['strat'], /unknown command 'strat'[\s\S]*Did you mean start\?/],
      [['ledger', 'verify', '--jsn'], /unknown option '--jsn'[\s\S]*Did you mean --json\?/],
      [['start', '--port'], /option '--port <value>' argument missing/],
    ];
    for (const [args, message] of cases) {
      const run = await pixd(...args);
      assert.equal(run.status, 1, `pixd ${args.join(' ')}`);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    }
    for (const [flag, value, setting] of [
      ['--log-level', 'verbose', 'LOG_LEVEL'],
      ['--log-format', 'colour', 'LOG_FORMAT'],
    ]) {
      const bad = await pixd('start', flag, value);
      assert.equal(bad.status, 1);
      assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
      assert.match(bad.stderr, new RegExp(`^pixd: ${setting} must be one of`));
    }
    assert.equal(fs.existsSync(untouched), false);
  });

  describe('against a running server', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService();
    });
    after(() => svc.close());

    it('account create prints what the account needs and writes credentials-<conta>.json for its owner only', async () => {
      const run = await runPixd(['account', 'create', '--nome', 'Loja da Esquina', '--data-dir', svc.data.dataDir], {
        DATABASE_URL: svc.data.databaseUrl,
      });
      assert.equal(run.status, 0, run.stderr);
      const conta = /created account (\S+) \(Loja da Esquina/.exec(run.stdout)?.[1];
      assert.ok(conta, run.stdout);
      const file = path.join(svc.data.dataDir, `credentials-${conta}.json`);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const credentials = JSON.parse(fs.readFileSync(file, 'utf8'));
      for (const shown of [
        credentials.clientId,
        credentials.clientSecret,
        credentials.certificate.pem,
        credentials.certificate.key,
        credentials.caCertificate,
        ...credentials.chaves,
        file,
      ])
        assert.ok(run.stdout.includes(shown), `the output shows ${shown}`);
      assert.match(run.stdout, /shown once: store it now/);
      assert.equal(credentials.baseUrl, svc.baseUrl, 'the address the server listens on');

      // The file is all a client needs: a token with the account's own certificate.
      const client = new HttpsClient(credentials.baseUrl, fs.readFileSync(credentials.caCertificate, 'utf8'), {
        certPem: fs.readFileSync(credentials.certificate.pem, 'utf8'),
        keyPem: fs.readFileSync(credentials.certificate.key, 'utf8'),
      });
      try {
        const token = await client.request('POST', '/oauth/token', {
          body: { grant_type: 'client_credentials' },
          headers: {
            authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
          },
        });
        assert.equal(token.status, 200, token.text);
        // In the sandbox a new account plays the payer and moves its own clock, as the demo account does.
        const clock = await client.request('GET', '/sandbox/clock', { token: token.body.access_token });
        assert.equal(clock.status, 200, clock.text);
      } finally {
        client.close();
      }
      assert.equal(credentials.account.ispb, undefined, 'a plain account is no participant');
    });

    it('account create --participant gives the account an ISPB, shown in its credentials, and the *.ind.* scopes; the address flags its address', async () => {
      // With the holder's address, which due charges name as their receiver.
      const address = ['--logradouro', 'Rua da Aurora, 10', '--cidade', 'Recife', '--uf', 'PE', '--cep', '50050000'];
      const run = await runPixd(
        [
          'account',
          'create',
          '--participant',
          '--ispb',
          '87654321',
          ...address,
          '--json',
          '--data-dir',
          svc.data.dataDir,
        ],
        { DATABASE_URL: svc.data.databaseUrl },
      );
      assert.equal(run.status, 0, run.stderr);
      const credentials = JSON.parse(run.stdout);
      assert.equal(credentials.account.ispb, '87654321');
      const held = await svc.service.ctx.db.query(
        'select nome, logradouro, cidade, uf, cep from accounts where conta = $1',
        [credentials.account.conta],
      );
      assert.deepEqual(held.rows[0], {
        nome: `Conta ${credentials.account.conta}`,
        logradouro: 'Rua da Aurora, 10',
        cidade: 'Recife',
        uf: 'PE',
        cep: '50050000',
      });
      const { rows } = await svc.service.ctx.db.query<{ scopes: string[] }>(
        'select scopes from applications where client_id = $1',
        [credentials.clientId],
      );
      assert.ok(rows[0].scopes.includes('keys.ind.write') && rows[0].scopes.includes('devolutionRequest.ind.write'));
      assert.ok(rows[0].scopes.includes('sandbox.write'), 'the sandbox tools, by default in the sandbox');
      const refused = await runPixd(
        ['account', 'create', '--scopes', 'keys.ind.write', '--data-dir', svc.data.dataDir],
        { DATABASE_URL: svc.data.databaseUrl },
      );
      assert.notEqual(refused.status, 0, 'the participant scopes only for a participant');
      assert.match(refused.stderr, /participant/);
    });
  });

  it('credentials.json names the port a restart actually listens on', async () => {
    const first = await startTestService();
    await first.close({ keepData: true });
    const again = await startTestService({}, { reuse: first.data });
    try {
      assert.notEqual(again.baseUrl, first.baseUrl, 'the restart took another free port');
      const written = JSON.parse(fs.readFileSync(path.join(again.data.dataDir, 'credentials.json'), 'utf8'));
      assert.equal(written.baseUrl, again.baseUrl);
      assert.ok(await again.demo.token(), 'the demo credentials work on the new address');
    } finally {
      await again.close();
    }
  });
});
