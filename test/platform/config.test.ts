// suite: database-independent
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig, settingsWith } from '../../src/config.ts';
import { parseDatabaseUrl } from '../../src/platform/db/hosts.ts';

describe('settings', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, '/srv/app');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8443);
    assert.equal(config.dataDir, '/srv/app/.pixd');
    assert.equal(config.environment, 'sandbox');
    assert.equal(config.publicUrl, 'https://127.0.0.1:8443');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.webhookAttemptRetentionDays, 30);
    assert.equal(loadConfig({ PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS: '7' }).webhookAttemptRetentionDays, 7);
  });

  it('takes flags over the environment', () => {
    const settings = settingsWith(
      { PORT: '9000', PIXD_ENV: 'production', HOST: undefined },
      {
        PORT: '1',
        PIXD_ENV: 'sandbox',
        HOST: '0.0.0.0',
      },
    );
    const config = loadConfig(settings);
    assert.equal(config.port, 9000);
    assert.equal(config.environment, 'production');
    assert.equal(config.host, '0.0.0.0', 'a flag not given leaves the environment alone');
  });

  for (const [name, settings, message] of [
    ['port', { PORT: 'abc' }, /PORT/],
    ['port range', { PORT: '70000' }, /PORT/],
    ['environment', { PIXD_ENV: 'staging' }, /PIXD_ENV/],
    ['public url scheme', { PIXD_PUBLIC_URL: 'http://x' }, /PIXD_PUBLIC_URL/],
    ['database url', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    ['database host list', { DATABASE_URL: 'postgres://u@h1:5432,:99/db' }, /DATABASE_URL is not a valid URL/],
    ['database port', { DATABASE_URL: 'postgres://u@h1:5432,h2:99999/db' }, /"h2:99999" is not a host/],
    [
      'read-only session target',
      { DATABASE_URL: 'postgres://u@h1,h2/db?target_session_attrs=standby' },
      /target_session_attrs=standby/,
    ],
    ['redis url', { REDIS_URL: 'not a url' }, /REDIS_URL/],
    ['log level', { LOG_LEVEL: 'verbose' }, /LOG_LEVEL must be one of/],
    ['attempt retention', { PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS: '0' }, /PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS/],
    ['attempt retention unit', { PIXD_WEBHOOK_ATTEMPT_RETENTION_DAYS: '1.5' }, /whole number of days/],
  ] as const) {
    it(`refuses an invalid ${name}`, () =>
      assert.throws(
        () => loadConfig(settings),
        (e: Error) => e instanceof ConfigError && message.test(e.message),
      ));
  }

  it('accepts a DATABASE_URL with several hosts, as libpq does, and finds the writable one among them', () => {
    const url = 'postgres://u:p%40ss@h1:5433,[::1],h3/pixd?target_session_attrs=read-write&sslmode=disable';
    assert.equal(loadConfig({ DATABASE_URL: url }).databaseUrl, url);
    const target = parseDatabaseUrl(url);
    assert.deepEqual(target.hosts, [
      { host: 'h1', port: 5433 },
      { host: '::1', port: 5432 },
      { host: 'h3', port: 5432 },
    ]);
    assert.equal(target.writableOnly, true);
    // node-postgres gets one host at a time, the password as written and no target_session_attrs (pixd applies it).
    assert.equal(target.urlFor(target.hosts[1]), 'postgres://u:p%40ss@[::1]:5432/pixd?sslmode=disable');
    assert.equal(parseDatabaseUrl('postgres://u@h1,h2/db').writableOnly, true, 'several hosts: a failover');
    assert.equal(parseDatabaseUrl('postgres://u@h1/db').writableOnly, false, 'one host: as before');
  });

  it('stops start-up with a one-line reason', () => {
    const run = spawnSync(process.execPath, ['bin/pixd.js', 'start', '--env', 'staging'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.status, 1);
    assert.equal(run.stderr.trim().split('\n').length, 1);
    assert.match(run.stderr, /^pixd: PIXD_ENV must be/);
  });
});
