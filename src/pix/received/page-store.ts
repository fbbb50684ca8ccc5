/**
 * GET /v2/pix's page, written by PostgreSQL: one statement returns the whole response body as JSON text, which
 * the route sends as it is. Building a hundred `Pix` objects in pixd (row parsing, the views, the response
 * serializer, their garbage) was most of pixd's CPU on that route (docs/performance.md sessions 5 and 7), and
 * composing their text per request was then most of PostgreSQL's (session 9): each Pix's text is composed once,
 * when it is inserted, into received_pix's generated columns `json_head` and `json_tail` (migration 025, which
 * says why the text never changes), and the page only puts its refunds, which do change, in between.
 *
 * The body must be what the JS views and the response schema would have written: the same properties in the
 * serializer's order (fast-json-stringify writes an object's required properties first, then the optional
 * ones, each group in the schema's order), optional properties absent rather than null or empty, compact, the
 * same amount and timestamp texts (`formatAmount` and `toISOString`, as migration 025's functions write
 * them). Strings go through to_json, which quotes and escapes them. test/pix/payments.test.ts compares every
 * listed Pix with its single read (view.ts).
 */
import type { Sql } from '../../platform/db/database.ts';
import type { ReceivedPixFilter } from './store.ts';

/** A JSON string literal of a text expression (quoted and escaped by PostgreSQL). */
const str = (text: string) => `to_json(${text})::text`;

/** `,"name":<value>` when the text is present (not null, not empty: the views omit both), else nothing. */
const optional = (name: string, text: string) =>
  `case when nullif(${text}, '') is not null then ',"${name}":' || ${str(text)} else '' end`;

/** refundView (view.ts) over a `refunds` row aliased `r`. */
const REFUND_JSON = `'{"id":' || ${str('r.refund_id')} || ',"rtrId":' || ${str('r.rtr_id')}
  || ',"valor":"' || pix_amount_text(r.amount_cents) || '","natureza":' || ${str('r.natureza')}
  || ',"horario":{"solicitacao":"' || pix_iso_text(r.requested_at) || '"'
  || case when r.settled_at is not null then ',"liquidacao":"' || pix_iso_text(r.settled_at) || '"' else '' end
  || '},"status":' || ${str('r.status')} || ${optional('descricao', 'r.descricao')} || ${optional('motivo', 'r.motivo')} || '}'`;

/** pixView (view.ts): the stored text around the refunds' JSON (`page_refunds.json`). */
const PIX_JSON = `p.json_head || ',"devolucoes":[' || coalesce(page_refunds.json, '') || ']' || p.json_tail`;

/**
 * The page's body: `{parametros {inicio, fim, paginacao}, pix: [...]}` for the filter, `inicio` and `fim` echoed
 * as the caller wrote them. The total is an uncorrelated count on the index; the page is cut before its rows
 * are read, so only the page's rows (and their refunds) are read whole. The page's refunds are
 * read and composed in one pass joined to it: a subquery per Pix (a hundred index lookups and aggregates,
 * nearly all finding none) was a fifth of the statement's execution (docs/performance.md, session 9).
 */
export async function receivedPixPageJson(
  sql: Sql,
  f: ReceivedPixFilter,
  echo: { inicio: string; fim: string },
  page: number,
  pageSize: number,
): Promise<string> {
  const params: unknown[] = [f.accountId, f.inicio, f.fim];
  const conditions = ['account_id = $1', 'received_at >= $2', 'received_at <= $3'];
  const add = (condition: string, value?: unknown) => {
    if (value === undefined) return conditions.push(condition);
    params.push(value);
    return conditions.push(condition.replace('?', `$${params.length}`));
  };
  if (f.txid) add('txid = ?', f.txid);
  if (f.txIdPresente !== undefined) add(f.txIdPresente ? 'txid is not null' : 'txid is null');
  if (f.devolucaoPresente !== undefined)
    add(
      `${f.devolucaoPresente ? '' : 'not '}exists (select 1 from refunds r where r.received_pix_id = received_pix.id)`,
    );
  if (f.cpf) add('pagador_cpf = ?', f.cpf);
  if (f.cnpj) add('pagador_cnpj = ?', f.cnpj);
  const where = conditions.join(' and ');
  params.push(pageSize, page, echo.inicio, echo.fim);
  const n = params.length;
  const [size, current, inicio, fim] = [`$${n - 3}::int`, `$${n - 2}::int`, `$${n - 1}::text`, `$${n}::text`];
  const { rows } = await sql.query<{ body: string }>(
    `with page as materialized (
       select id, received_at, json_head, json_tail from received_pix where ${where}
       order by received_at, id limit ${size} offset ${current} * ${size}),
     page_refunds as (
       select r.received_pix_id, string_agg(${REFUND_JSON}, ',' order by r.id) as json from refunds r
       where r.received_pix_id in (select id from page) group by r.received_pix_id),
     total as (select count(*)::bigint as n from received_pix where ${where})
     select '{"parametros":{"inicio":' || to_json(${inicio})::text || ',"fim":' || to_json(${fim})::text
       || ',"paginacao":{"paginaAtual":' || ${current} || ',"itensPorPagina":' || ${size}
       || ',"quantidadeDePaginas":' || greatest(1, ceil(total.n::numeric / ${size}))::bigint
       || ',"quantidadeTotalDeItens":' || total.n || '}},"pix":['
       || coalesce((select string_agg(${PIX_JSON}, ',' order by p.received_at, p.id)
                    from page p left join page_refunds on page_refunds.received_pix_id = p.id), '') || ']}' as body
     from total`,
    params,
  );
  return rows[0].body;
}
