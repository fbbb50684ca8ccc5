// suite: database-independent
/**
 * The error catalogue (src/platform/error-catalogue.ts): docs/api.md lists it as it is, each name belongs to one
 * group and is raised somewhere, and the problem titles are the ones the server answered before the catalogue
 * (a name without a title still answers with its name as the title).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { API_DOC, apiDocWithCatalogue } from '../../scripts/error-catalogue-doc.ts';
import { ERROR_CATALOGUE, errorEntry, errorTitle, type ErrorName } from '../../src/platform/error-catalogue.ts';
import { ApiError, problemObject } from '../../src/platform/errors.ts';
import { sourceFiles } from '../helpers/sources.ts';

/** src/platform/errors.ts's title table before the catalogue, verbatim. */
const TITLES_BEFORE: Record<string, string> = {
  NaoEncontrado: 'Não Encontrado',
  AcessoNegado: 'Acesso Negado',
  Unauthorized: 'Não autorizado',
  RequisicaoInvalida: 'Requisição inválida',
  ServicoIndisponivel: 'Serviço Indisponível',
  ErroInternoDoServidor: 'Erro Interno do Servidor',
  LimiteDeRequisicoes: 'Limite de requisições atingido',
  CobOperacaoInvalida: 'Cobrança inválida.',
  CobVOperacaoInvalida: 'Cobrança inválida.',
  CobConsultaInvalida: 'Consulta inválida.',
  CobVConsultaInvalida: 'Consulta inválida.',
  CobNaoEncontrado: 'Cobrança não encontrada.',
  CobVNaoEncontrada: 'Cobrança com vencimento não encontrada.',
  LoteCobVOperacaoInvalida: 'Lote de cobranças inválido.',
  LoteCobVConsultaInvalida: 'Consulta inválida.',
  PayloadLocationOperacaoInvalida: 'Location inválida.',
  PayloadLocationConsultaInvalida: 'Consulta inválida.',
  PayloadLocationNaoEncontrado: 'Location não encontrada.',
  CobPayloadNaoEncontrado: 'Payload não encontrado.',
  CobPayloadOperacaoInvalida: 'Requisição de payload inválida.',
  PixConsultaInvalida: 'Consulta inválida.',
  PixDevolucaoInvalida: 'Devolução inválida.',
  PixRecusado: 'Pix recusado.',
  PagamentoInvalido: 'Pagamento inválido.',
  WebhookOperacaoInvalida: 'Webhook inválido.',
  WebhookRecOperacaoInvalida: 'Webhook de recorrência inválido.',
  WebhookCobROperacaoInvalida: 'Webhook de cobrança recorrente inválido.',
  WebhookNaoEncontrado: 'Webhook não encontrado.',
  WebhookConsultaInvalida: 'Consulta inválida.',
  WebhookReenvioInvalido: 'Reenvio inválido.',
  SplitConfigOperacaoInvalida: 'Configuração de split inválida.',
  SplitVinculoInvalido: 'Vínculo de split inválido.',
  SplitConsultaInvalida: 'Consulta inválida.',
  SplitConfigNaoEncontrada: 'Configuração de split não encontrada.',
  SplitVinculoNaoEncontrado: 'Vínculo de split não encontrado.',
  ExtratoConciliacaoConsultaInvalida: 'Requisição de extrato inválida.',
  AgendamentoInvalido: 'Agendamento inválido.',
  ErroInterno: 'Erro interno.',
  RecOperacaoInvalida: 'Operação inválida.',
  PayloadLocationRecNaoEncontrado: 'Location não encontrada.',
  PayloadLocationRecConsultaInvalida: 'Consulta inválida.',
  PayloadLocationRecOperacaoInvalida: 'Location inválida.',
  RecConsultaInvalida: 'Consulta inválida.',
  RecNaoEncontrada: 'Recorrência não encontrada.',
  CobROperacaoInvalida: 'Operação inválida.',
  CobRConsultaInvalida: 'Consulta inválida.',
  CobRNaoEncontrado: 'Cobrança recorrente não encontrada.',
  SolicRecOperacaoInvalida: 'Operação inválida.',
  SolicRecNaoEncontrada: 'Solicitação de recorrência não encontrada.',
};

const names = Object.values(ERROR_CATALOGUE).flatMap((group) => Object.keys(group)) as ErrorName[];

describe('error catalogue', () => {
  it('docs/api.md lists the catalogue as it is (node --import tsx scripts/error-catalogue-doc.ts rewrites it)', () => {
    const doc = fs.readFileSync(API_DOC, 'utf8');
    assert.equal(doc, apiDocWithCatalogue(doc));
  });

  it('a name belongs to one group only', () => {
    const repeated = names.filter((name, i) => names.indexOf(name) !== i);
    assert.deepEqual(repeated, []);
  });

  it('every name is raised somewhere in src/ (no entry outlives its last call site)', () => {
    const catalogue = path.resolve('src/platform/error-catalogue.ts');
    const text = sourceFiles('src')
      .filter((file) => file !== catalogue)
      .map((file) => fs.readFileSync(file, 'utf8'))
      .join('\n');
    assert.deepEqual(
      names.filter((name) => !text.includes(`'${name}'`)),
      [],
    );
  });

  it('problem titles are the ones answered before the catalogue; a name without one is its own title', () => {
    for (const name of names) assert.equal(errorTitle(name), TITLES_BEFORE[name] ?? name, name);
    assert.deepEqual(
      Object.keys(TITLES_BEFORE).filter((name) => !names.includes(name as ErrorName)),
      [],
    );
  });

  it('the problem object takes its title from the catalogue', () => {
    const body = problemObject(new ApiError(404, 'CobNaoEncontrado', 'Cobrança não encontrada para o txid informado.'));
    assert.equal(body.title, 'Cobrança não encontrada.');
    assert.equal(body.type, 'https://pix.bcb.gov.br/api/v2/error/CobNaoEncontrado');
    assert.equal(body.status, errorEntry('CobNaoEncontrado').status);
  });
});
