/**
 * The operator contract, exercised on the real command: start, credentials.json, the start banner's command
 * (which reads the client secret from credentials.json, never printing it), CLI, SIGTERM.
 */
// suite: serial (child processes, one of them signalled mid-request): run alone, after the concurrent files; see scripts/test.sh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, freshPostgres } from '../helpers/service.ts';
import { HttpsClient } from '../helpers/https-client.ts';
import { waitFor } from '../helpers/wait.ts';

const BIN = path.resolve('bin/pixd.js');

function startProcess(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'start'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      if (output.includes('API reference:')) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
}

/** Whether the port still takes connections (a draining server closed its listener). */
const accepting = (baseUrl: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(baseUrl);
    const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

describe('pixd command', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let dropDatabase: (() => Promise<void>) | undefined;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-proc-'));
    env = { PIXD_DATA_DIR: dataDir, PORT: String(await freePort()), PIXD_PAGES_PORT: '0' };
    if (process.env.DATABASE_URL) {
      const db = await freshPostgres(process.env.DATABASE_URL);
      env.DATABASE_URL = db.url;
      dropDatabase = db.drop;
    }
  });
  after(async () => {
    await dropDatabase?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start writes credentials.json with exactly the documented fields, then serves them', async () => {
    const { child, output } = await startProcess(env);
    try {
      const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
      assert.deepEqual(
        Object.keys(credentials).sort(),
        [
          'account',
          'baseUrl',
          'caCertificate',
          'certificate',
          'chaves',
          'clientId',
          'clientSecret',
          'environment',
          'webhookCertificateChain',
        ].sort(),
      );
      assert.deepEqual(Object.keys(credentials.certificate).sort(), ['key', 'p12', 'pem']);
      assert.deepEqual(Object.keys(credentials.account).sort(), ['conta', 'documento', 'nome', 'payeeCode']);
      for (const file of [
        credentials.certificate.p12,
        credentials.certificate.pem,
        credentials.certificate.key,
        credentials.caCertificate,
        credentials.webhookCertificateChain,
      ]) {
        assert.ok(path.isAbsolute(file) && fs.existsSync(file), file);
      }
      assert.equal(credentials.environment, 'sandbox');
      assert.equal(credentials.chaves.length, 1);
      assert.match(output(), /curl --cacert/);

      // The .p12 (empty passphrase) alone is enough for a client: it carries the CA too.
      const agent = new https.Agent({ pfx: fs.readFileSync(credentials.certificate.p12), passphrase: '' });
      const status = await new Promise<number>((resolve, reject) => {
        const req = https.request(
          `${credentials.baseUrl}/oauth/token`,
          {
            method: 'POST',
            agent,
            headers: {
              authorization:
                'Basic ' + Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64'),
              'content-type': 'application/json',
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{"grant_type":"client_credentials"}');
      });
      agent.destroy();
      assert.equal(status, 200);

      const http = new HttpsClient(credentials.baseUrl, fs.readFileSync(credentials.caCertificate, 'utf8'));
      const health = await http.request('GET', '/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'ok');
      const metrics = await http.request('GET', '/metrics');
      assert.match(
        metrics.text,
        /pixd_http_requests_total\{method="POST",route="\/oauth\/token",status_code="200"\} 1/,
      );
      assert.match(metrics.text, /pixd_http_request_duration_seconds_bucket/);

      // The start banner never prints the client secret (it would land in every log): its command reads it.
      assert.ok(!output().includes(credentials.clientSecret), 'no client secret in the start output');
      const printed = /^try it.*\n((?: {2}.*\n)+)/m.exec(output());
      assert.ok(printed, output());
      const tried = spawnSync('bash', ['-c', printed[1]], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(tried.status, 0, tried.stderr);
      assert.equal(JSON.parse(tried.stdout).token_type, 'Bearer', tried.stdout);
      const openapi = await http.request('GET', '/openapi.json');
      assert.equal(openapi.status, 200);
      assert.ok(openapi.body.paths['/v2/cob/{txid}'].put, 'OpenAPI generated from route schemas');
      assert.ok(openapi.body.paths['/v2/cob'].post.requestBody);
      const docs = await http.request('GET', '/docs/');
      assert.equal(docs.status, 200);
      assert.match(docs.text, /swagger/i);

      // The CLI goes through the operator API while the server owns the database.
      const cli = spawnSync(
        process.execPath,
        [
          BIN,
          'account',
          'create',
          '--nome',
          'Loja Dois Ltda',
          '--documento',
          '11444777000161',
          '--scopes',
          'cob.read,cob.write',
          '--json',
        ],
        { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 },
      );
      assert.equal(cli.status, 0, cli.stderr);
      const second = JSON.parse(cli.stdout);
      assert.equal(second.account.nome, 'Loja Dois Ltda');
      assert.equal(second.account.documento, '11444777000161');
      assert.notEqual(second.clientId, credentials.clientId);
      assert.ok(fs.existsSync(second.certificate.p12));
      const secondHttp = new HttpsClient(credentials.baseUrl, fs.readFileSync(credentials.caCertificate, 'utf8'), {
        certPem: fs.readFileSync(second.certificate.pem, 'utf8'),
        keyPem: fs.readFileSync(second.certificate.key, 'utf8'),
      });
      const token = await secondHttp.request('POST', '/oauth/token', {
        body: { grant_type: 'client_credentials' },
        headers: {
          authorization: 'Basic ' + Buffer.from(`${second.clientId}:${second.clientSecret}`).toString('base64'),
        },
      });
      assert.equal(token.status, 200);
      assert.equal(token.body.scope, 'cob.read cob.write');
      const bad = spawnSync(process.execPath, [BIN, 'account', 'create', '--documento', '123', '--json'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /not a valid CPF or CNPJ/);
      const operatorSecret = JSON.parse(fs.readFileSync(path.join(dataDir, 'operator.json'), 'utf8')).secret;
      assert.ok(
        !JSON.stringify(credentials).includes(operatorSecret),
        'account credentials never carry the operator secret',
      );
      const asAccount = await http.request('POST', '/operator/accounts', {
        body: {},
        token: (
          await secondHttp.request('POST', '/oauth/token', {
            body: { grant_type: 'client_credentials' },
            headers: {
              authorization: 'Basic ' + Buffer.from(`${second.clientId}:${second.clientSecret}`).toString('base64'),
            },
          })
        ).body.access_token,
      });
      assert.equal(asAccount.status, 401, 'an account token is no operator secret');
      http.close();
      secondHttp.close();

      // SIGTERM while a request is still uploading: it completes, then the process exits 0.
      const inFlight = new Promise<number>((resolve, reject) => {
        const req = https.request(
          `${credentials.baseUrl}/oauth/token`,
          {
            method: 'POST',
            ca: fs.readFileSync(credentials.caCertificate),
            cert: fs.readFileSync(credentials.certificate.pem),
            key: fs.readFileSync(credentials.certificate.key),
            headers: {
              authorization:
                'Basic ' + Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64'),
              'content-type': 'application/json',
              'content-length': '35',
              // The server's 100 Continue says it has read the headers: the request is in flight from then on.
              expect: '100-continue',
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.once('continue', () => {
          req.write('{"grant_type":');
          child.kill('SIGTERM');
          // The rest of the body once the node is draining (its listener closed).
          waitFor(async () => !(await accepting(credentials.baseUrl)), 'the listener to close').then(
            () => req.end('"client_credentials"}'),
            reject,
          );
        });
        req.flushHeaders();
      });
      const exit = exited(child);
      assert.equal(await inFlight, 200);
      assert.equal(await exit, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('later starts reuse the credentials, and the CLI opens the database itself when no server runs', async () => {
    const before = fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8');
    const cli = spawnSync(process.execPath, [BIN, 'account', 'create', '--json'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(JSON.parse(cli.stdout).clientId, /^Client_Id_/);
    const migrate = spawnSync(process.execPath, [BIN, 'migrate'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(migrate.status, 0, migrate.stderr);
    assert.match(migrate.stdout, /up to date/);
    const { child } = await startProcess(env);
    const exit = exited(child);
    child.kill('SIGTERM');
    assert.equal(await exit, 0);
    assert.equal(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'), before);
  });
});
