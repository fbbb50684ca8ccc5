/**
 * CNAB statements through the official Efí Node SDK (only its base address pointed at pixd): a daily schedule
 * makes the day's CNAB 240 file from the ledger on the account's clock; the file parses as CNAB 240 (240
 * characters a record, record types, totals) with opening and closing balances equal to what
 * `getAccountBalance` answered at those instants; it downloads over HTTPS and, with the key pair
 * `createSftpKey` made, over SFTP with the system `sftp` client. Another account's key sees none of it, and
 * writes are refused. Schedules are listed, deactivated and changed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EfiPay } from '../compat/efipay.ts';
import { pointSdkAt } from '../../src/testing/point-sdk.ts';
import { sdkForParty } from '../helpers/sdk.ts';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { waitFor, outboxIdle } from '../helpers/wait.ts';
import { callerWithFreshToken, setClock } from '../helpers/time-travel.ts';
import { assertLedgerBalanced } from '../helpers/ledger.ts';
import { brasiliaDate, fromEpochDay, toEpochDay, weekday } from '../../src/platform/calendar.ts';
import { parseAmount } from '../../src/platform/money.ts';

type FileItem = { nome: string; data_geracao: string; periodo_inicio: string; periodo_fim: string };
type Schedule = {
  identificador: string;
  status: string;
  periodicidade: string;
  proxima_execucao: string | null;
  comprimir_arquivos: boolean;
};
type SftpKey = { privateKey: string; usuario: string; host: string; porta: number };

/** Runs `sftp` in batch mode; resolves with its exit code and output (a failed command ends the batch). */
function sftp(key: SftpKey, keyFile: string, commands: string[]) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    const batch = `${keyFile}.batch`;
    fs.writeFileSync(batch, commands.join('\n') + '\n');
    execFile(
      '/usr/bin/sftp',
      [
        ...['-i', keyFile, '-P', String(key.porta), '-b', batch],
        ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes'],
        ...['-o', 'IdentitiesOnly=yes', '-o', 'LogLevel=ERROR', `${key.usuario}@${key.host}`],
      ],
      { timeout: 20_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

/** The CNAB 240 records of a file, each checked to be 240 characters. */
function records(text: string): string[] {
  assert.ok(text.endsWith('\r\n'), 'records end with CR LF');
  const lines = text.slice(0, -2).split('\r\n');
  for (const line of lines) assert.equal(line.length, 240, line);
  return lines;
}

const cents = (field: string) => Number(field);
const signed = (amount: string, situation: string) => (situation === 'D' ? -cents(amount) : cents(amount));

describe('CNAB statements (official SDK, HTTPS and SFTP)', () => {
  let svc: TestService;
  let restore: () => void;
  let dir: string;
  let a: Party;
  let b: Party;
  let efiA: EfiPay;
  let efiB: EfiPay;
  const day = fromEpochDay(toEpochDay(brasiliaDate(new Date())) + 3);
  const nextDay = fromEpochDay(toEpochDay(day) + 1);

  const sdkOf = (party: Party, name: string) => sdkForParty(party, dir, name);
  const saldo = async (efi: EfiPay) => ((await efi.getAccountBalance()) as { saldo: string }).saldo;
  const keyFileOf = (key: SftpKey, name: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, key.privateKey, { mode: 0o600 });
    return file;
  };

  before(async () => {
    svc = await startTestService();
    restore = await pointSdkAt(svc.baseUrl, svc.caPem);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pixd-statements-'));
    // Parties first: certificates are checked against real time (time-travel.ts).
    a = await svc.newParty({ nome: 'Conciliadora A Ltda' });
    b = await svc.newParty({ nome: 'Outra Conta B Ltda' });
    efiA = sdkOf(a, 'a');
    efiB = sdkOf(b, 'b');
  });
  after(async () => {
    restore?.();
    await svc?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  let file: FileItem;
  let text: string;
  let ownerUser: string;

  it('a daily schedule makes the day’s file on the account clock, its balances those of the balance API', async () => {
    setClock(svc, `${day}T09:00:00-03:00`);
    const created = (await efiA.createStatementRecurrency(
      {},
      { periodicidade: 'diario', envia_email: false, comprimir_arquivos: false },
    )) as unknown as Schedule;
    assert.equal(created.status, 'ativo');
    assert.equal(created.proxima_execucao, `${nextDay}T03:00:00.000Z`);

    const opening = await saldo(efiA);
    const pay = callerWithFreshToken(a);
    for (const valor of ['25.00', '10.50'])
      assert.equal((await pay('POST', '/sandbox/pix/pay', { chave: a.chaves[0], valor })).status, 201);
    await waitFor(async () => (await saldo(efiA)) === '35.50', 'both Pix received');
    // A judicial block leaves the available balance: a debit line of its own.
    assert.equal((await pay('POST', '/sandbox/saldo/bloqueios', { tipo: 'judicial', valor: '3.00' })).status, 201);
    const closing = await saldo(efiA);
    assert.equal(closing, '32.50');

    setClock(svc, `${nextDay}T00:30:00-03:00`);
    const files = await waitFor(async () => {
      const list = (await efiA.listStatementFiles()) as unknown as FileItem[];
      return list.length > 0 && list;
    }, 'the daily file');
    assert.equal(files.length, 1);
    file = files[0];
    assert.deepEqual([file.periodo_inicio, file.periodo_fim], [day, day]);
    text = (await efiA.getStatementFile({ nome_arquivo: file.nome })) as unknown as string;

    const lines = records(text);
    assert.deepEqual(
      lines.map((l) => l[7] + (l[7] === '3' ? l[13] : '')),
      ['0', '1', '3E', '3E', '3E', '5', '9'],
    );
    const [header, batch, ...rest] = lines;
    const trailer = rest[rest.length - 2];
    const fileTrailer = rest[rest.length - 1];
    const details = rest.slice(0, -2);
    assert.equal(header.slice(142, 143), '2', 'a return file');
    assert.equal(batch.slice(8, 16), 'E0440033', 'statement batch: operation E, service 04, form 40, layout 033');
    assert.equal(batch.slice(142, 150), `${day.slice(8, 10)}${day.slice(5, 7)}${day.slice(0, 4)}`);
    assert.equal(signed(batch.slice(150, 168), batch[168]), parseAmount(opening));
    assert.equal(signed(trailer.slice(150, 168), trailer[168]), parseAmount(closing));
    const values = details.map((d) => signed(d.slice(150, 168), d[168]));
    assert.deepEqual(values, [2500, 1050, -300]);
    assert.deepEqual(
      details.map((d) => d.slice(169, 172)),
      ['209', '209', '104'],
    );
    assert.match(details[0].slice(201, 240).trim(), /^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    assert.equal(cents(trailer.slice(176, 194)), 300, 'debits');
    assert.equal(cents(trailer.slice(194, 212)), 3550, 'credits');
    assert.equal(Number(trailer.slice(170, 176)), details.length + 2, 'batch records');
    assert.equal(Number(fileTrailer.slice(17, 23)), 1, 'batches');
    assert.equal(Number(fileTrailer.slice(23, 29)), lines.length, 'file records');
    await assertLedgerBalanced(svc.service.ctx.db);
  });

  it('delivers the file over SFTP to the key pair createSftpKey made, read-only', async () => {
    const key = (await efiA.createSftpKey()) as unknown as SftpKey;
    assert.match(key.privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----/);
    ownerUser = key.usuario;
    const keyFile = keyFileOf(key, 'a_key');
    const local = path.join(dir, 'downloaded.ret');
    const got = await sftp(key, keyFile, ['ls -1', `get ${file.nome} ${local}`]);
    assert.equal(got.code, 0, got.output);
    assert.match(got.output, new RegExp(file.nome));
    assert.equal(fs.readFileSync(local, 'utf8'), text);

    for (const refused of [`put ${local} novo.ret`, `rm ${file.nome}`, 'mkdir pasta', `rename ${file.nome} x.ret`]) {
      const attempt = await sftp(key, keyFile, [refused]);
      assert.notEqual(attempt.code, 0, refused);
      assert.match(attempt.output, /Permission denied|denied|somente leitura/i, refused);
    }
  });

  it("another account's key sees none of the file, and cannot log in as the owner", async () => {
    const keyB = (await efiB.createSftpKey()) as unknown as SftpKey;
    const keyFile = keyFileOf(keyB, 'b_key');
    const listed = await sftp(keyB, keyFile, ['ls -1']);
    assert.equal(listed.code, 0, listed.output);
    assert.doesNotMatch(listed.output, /CNAB240_/);
    const stolen = await sftp(keyB, keyFile, [`get ${file.nome} ${path.join(dir, 'stolen.ret')}`]);
    assert.notEqual(stolen.code, 0);
    assert.equal(fs.existsSync(path.join(dir, 'stolen.ret')), false);
    const owner = (await efiA.listStatementFiles()) as unknown as FileItem[];
    assert.equal(owner.length, 1);
    const asOwner = await sftp({ ...keyB, usuario: ownerUser }, keyFile, ['ls -1']);
    assert.notEqual(asOwner.code, 0, 'b’s key is not a’s');
    assert.equal(((await efiB.listStatementFiles()) as unknown as FileItem[]).length, 0);
    await assert.rejects(efiB.getStatementFile({ nome_arquivo: file.nome }), (e: { nome?: string }) => {
      assert.equal(e.nome, 'arquivo_nao_encontrado');
      return true;
    });
  });

  it('lists schedules, deactivates one (no more files) and changes its periodicity', async () => {
    const [schedule] = (await efiA.listStatementRecurrences()) as unknown as Schedule[];
    assert.equal(schedule.periodicidade, 'diario');
    const third = fromEpochDay(toEpochDay(nextDay) + 1);
    assert.equal(schedule.proxima_execucao, `${third}T03:00:00.000Z`, 'moved on to the next midnight');

    const off = (await efiA.updateStatementRecurrency({ identificador: schedule.identificador }, {
      status: 'inativo',
    } as never)) as unknown as Schedule;
    assert.deepEqual([off.status, off.proxima_execucao], ['inativo', null]);
    setClock(svc, `${third}T01:00:00-03:00`);
    await outboxIdle(svc);
    assert.equal(((await efiA.listStatementFiles()) as unknown as FileItem[]).length, 1, 'no file while inactive');

    const weekly = (await efiA.updateStatementRecurrency({ identificador: schedule.identificador }, {
      status: 'ativo',
      periodicidade: 'semanal',
    } as never)) as unknown as Schedule;
    const next = new Date(String(weekly.proxima_execucao));
    assert.equal(weekday(toEpochDay(brasiliaDate(next))), 1, 'weekly files are made on Mondays');
    await assert.rejects(
      efiA.updateStatementRecurrency({ identificador: 'nao-existe' }, { status: 'ativo' } as never),
      (e: { nome?: string }) => e.nome === 'agendamento_nao_encontrado',
    );
    await assert.rejects(
      efiA.createStatementRecurrency({}, { periodicidade: 'anual' } as never),
      (e: { nome?: string }) => e.nome === 'agendamento_invalido',
    );
  });

  it('comprimir_arquivos: the file is a ZIP holding the .RET, over SFTP as listed', async () => {
    const created = (await efiB.createStatementRecurrency(
      {},
      { periodicidade: 'diario', envia_email: false, comprimir_arquivos: true },
    )) as unknown as Schedule;
    assert.equal(created.comprimir_arquivos, true);
    const runDay = String(created.proxima_execucao).slice(0, 10);
    setClock(svc, `${runDay}T00:30:00-03:00`);
    const [zipped] = await waitFor(async () => {
      const list = (await efiB.listStatementFiles()) as unknown as FileItem[];
      return list.length > 0 && list;
    }, "b's compressed file");
    assert.match(zipped.nome, /^CNAB240_\d+_\d{8}_\d{8}\.zip$/);

    const key = (await efiB.createSftpKey()) as unknown as SftpKey;
    const local = path.join(dir, 'downloaded.zip');
    const got = await sftp(key, keyFileOf(key, 'b_zip_key'), [`get ${zipped.nome} ${local}`]);
    assert.equal(got.code, 0, got.output);
    const unzip = (...args: string[]) => execFileSync('unzip', args, { encoding: 'utf8' });
    assert.match(unzip('-t', local), /No errors detected/);
    assert.match(unzip('-l', local), new RegExp(zipped.nome.replace('.zip', '.RET')));
    const lines = records(unzip('-p', local));
    assert.deepEqual(
      lines.map((l) => l[7]),
      ['0', '1', '5', '9'],
      'a day without movements: header, batch header, batch trailer, file trailer',
    );
  });
});
