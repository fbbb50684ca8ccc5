/**
 * What the Open Finance tests share: a valid enrolment body for a node's demo account, and a local plain-HTTP
 * page standing for the application's `redirectURL`. Their SDK client is test/helpers/sdk.ts's.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { brasiliaDate, fromEpochDay, toEpochDay } from '../../src/platform/calendar.ts';
import type { EnrolmentBody } from '../../src/openfinance/enrolments/schemas.ts';
import type { TestService } from '../helpers/service.ts';

/** A payer's CPF with valid check digits. */
export const PAYER_CPF = '94271564656';

export async function demoAccount(svc: TestService): Promise<{ conta: string; documento: string; nome: string }> {
  const { rows } = await svc.service.ctx.db.query<{ conta: string; documento: string; nome: string }>(
    'select conta, documento, nome from accounts where id = $1',
    [svc.demo.accountId],
  );
  return rows[0];
}

/** A date `days` after the demo account's today (Brasília calendar). */
export const dateIn = (svc: TestService, days: number) =>
  fromEpochDay(toEpochDay(brasiliaDate(svc.service.ctx.clock.forAccount(svc.demo.accountId).now())) + days);

export function enrolmentBody(
  svc: TestService,
  account: { conta: string; documento: string; nome: string },
  idParticipante: string,
  automatico: Partial<EnrolmentBody['assinatura']['configuracao']['automatico']> = {},
): EnrolmentBody & { pagador: { cpf: string } } {
  return {
    pagador: { cpf: PAYER_CPF, nome: 'Gorbadoc Oldbuck', idParticipante },
    favorecido: {
      contaBanco: {
        nome: account.nome,
        documento: account.documento,
        codigoBanco: '364',
        agencia: '0001',
        conta: account.conta,
        tipoConta: 'TRAN',
      },
    },
    assinatura: {
      expiracao: dateIn(svc, 365),
      descricao: 'Assinatura mensal da academia',
      idProprio: `of-${Date.now().toString(36)}`,
      configuracao: {
        automatico: {
          valorMinimo: '1.00',
          valorMaximo: '50.00',
          intervalo: 'MENSAL',
          dataInicio: dateIn(svc, 0),
          permiteRetentativa: true,
          ...automatico,
        },
      },
    },
  };
}

/** The payer at the page: logs in and decides, as the form posts; answers where the browser ends up. */
export async function consentAt(
  svc: TestService,
  redirectURI: string,
  decisao: 'autorizar' | 'recusar' = 'autorizar',
): Promise<URLSearchParams> {
  const form = new URLSearchParams({ login: PAYER_CPF, senha: '123456', decisao }).toString();
  const answer = await svc.anonymous.request('POST', new URL(redirectURI).pathname, {
    rawBody: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(answer.status, 303, answer.text);
  const back = await svc.anonymous.request('GET', String(answer.headers.location));
  assert.equal(back.status, 303);
  return new URL(String(back.headers.location)).searchParams;
}

/** The application's page the payer's browser returns to: records each query it is opened with. */
export class RedirectPage {
  readonly visits: URLSearchParams[] = [];
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<RedirectPage> {
    let page: RedirectPage | undefined;
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      page?.visits.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Aplicação</title><h1 id="done">Retorno: ${url.searchParams.get('status')}</h1>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    page = new RedirectPage(server, `http://127.0.0.1:${port}/retorno`);
    return page;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
