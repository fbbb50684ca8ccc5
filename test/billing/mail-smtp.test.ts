/**
 * Billing e-mails through SMTP (issue 30, item 2): a production node given PIXD_SMTP_URL hands the mail outbox
 * to a real SMTP server (smtp-server, in this process, with a login): sendBilletEmail answers at once and the
 * message arrives with its To, Subject and the boleto's linha digitável and PDF link; with the server down the
 * API still answers 200, the row counts its failed attempts, and the message is delivered once the server is back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { sdkFor } from '../helpers/sdk.ts';
import { waitFor } from '../helpers/wait.ts';
import { customer, items } from './helpers.ts';
import { loadConfig } from '../../src/config.ts';
import { redactedUrl } from '../../src/platform/log-redaction.ts';
import { brasiliaDate, brazilianDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';

const received: ParsedMail[] = [];

/** An SMTP server on `port` (0: a free one) that takes user `pixd` with password `s3cret` only. */
async function smtpServer(port: number): Promise<SMTPServer> {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    onAuth: (auth, _session, done) =>
      auth.username === 'pixd' && auth.password === 's3cret'
        ? done(null, { user: 'pixd' })
        : done(new Error('bad login')),
    onData: (stream, _session, done) => {
      simpleParser(stream).then((mail) => {
        received.push(mail);
        done();
      }, done);
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}
const closed = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('PIXD_SMTP_URL is a secret', () => {
  it('a refused value and the start log never show its password', () => {
    assert.throws(
      () => loadConfig({ PIXD_SMTP_URL: 'smtp://pixd:s3cret@[bad' }),
      (e: Error) => e.message.includes('PIXD_SMTP_URL') && !e.message.includes('s3cret'),
    );
    assert.throws(() => loadConfig({ PIXD_SMTP_URL: 'https://pixd:s3cret@mail.example' }), /smtp: or smtps:/);
    assert.equal(redactedUrl('smtps://pixd:s3cret@mail.example:465'), 'smtps://***@mail.example:465');
  });
});

describe('billing e-mails through SMTP on a production node', () => {
  let svc: TestService;
  let smtp: SMTPServer;
  let port: number;
  let restore: () => void;
  let efi: EfiPay;

  before(async () => {
    smtp = await smtpServer(0);
    port = (smtp.server.address() as AddressInfo).port;
    svc = await startTestService({
      PIXD_ENV: 'production',
      PIXD_SMTP_URL: `smtp://pixd:s3cret@127.0.0.1:${port}`,
      PIXD_MAIL_FROM: 'Cobranças <cobranca@example.com>',
    });
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    efi = sdkFor(svc);
  });
  after(async () => {
    restore?.();
    await svc?.close();
    if (smtp) await closed(smtp);
  });

  const mailRow = async (id: number) =>
    (
      await svc.service.ctx.db.query<{ status: string; attempts: number; error: string | null }>(
        'select status, attempts, error from mail_outbox where id = $1',
        [id],
      )
    ).rows[0];
  const lastMailId = async () =>
    Number((await svc.service.ctx.db.query<{ id: number }>('select max(id) as id from mail_outbox')).rows[0].id);
  const issueBoleto = async () => {
    const due = fromEpochDay(toEpochDay(brasiliaDate(new Date(svc.clock.now()))) + 7);
    const charge: any = await efi.createOneStepCharge({}, {
      items,
      payment: { banking_billet: { customer, expire_at: due } },
    } as any);
    return charge.data;
  };

  it('sendBilletEmail: the SMTP server receives To, Subject, the linha digitável and the PDF link', async () => {
    const boleto = await issueBoleto();
    const sent: any = await efi.sendBilletEmail({ id: boleto.charge_id }, { email: 'pagador@example.com' });
    assert.equal(sent.code, 200);
    const id = await lastMailId();
    const mail = await waitFor(async () => received.find((m) => m.text?.includes(boleto.barcode)), 'the e-mail');
    assert.equal(mail.to && !Array.isArray(mail.to) && mail.to.text, 'pagador@example.com');
    assert.equal(mail.from?.value[0]?.address, 'cobranca@example.com');
    assert.equal(mail.subject, `Boleto de Pixd Demo Ltda - vencimento ${brazilianDate(boleto.expire_at)}`);
    assert.ok(mail.text?.includes(`Linha digitável: ${boleto.barcode}`), String(mail.text));
    assert.ok(mail.text?.includes(`Boleto (PDF): ${boleto.pdf.charge}`), String(mail.text));
    const row = await waitFor(async () => {
      const r = await mailRow(id);
      return r.status === 'sent' && r;
    }, 'the row marked sent');
    assert.deepEqual(row, { status: 'sent', attempts: 1, error: null });
  });

  it('SMTP server down: the API answers 200, the attempts are counted, the e-mail goes once the server is back', async () => {
    await closed(smtp);
    const boleto = await issueBoleto();
    const sent: any = await efi.sendBilletEmail({ id: boleto.charge_id }, { email: 'depois@example.com' });
    assert.equal(sent.code, 200);
    const id = await lastMailId();
    const failing = await waitFor(async () => {
      const row = await mailRow(id);
      return row.attempts >= 1 && row;
    }, 'a failed attempt');
    assert.equal(failing.status, 'queued');
    assert.match(failing.error ?? '', /ECONNREFUSED|connect/i);
    assert.ok(!received.some((m) => m.text?.includes(boleto.barcode)));
    smtp = await smtpServer(port);
    const mail = await waitFor(
      async () => received.find((m) => m.text?.includes(boleto.barcode)),
      'the e-mail after the server came back',
    );
    assert.equal(mail.to && !Array.isArray(mail.to) && mail.to.text, 'depois@example.com');
    const row = await waitFor(async () => {
      const r = await mailRow(id);
      return r.status === 'sent' && r;
    }, 'the row marked sent');
    assert.ok(row.attempts >= 2);
    assert.equal(row.error, null);
  });
});
