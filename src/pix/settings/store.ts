/**
 * Settings rows (migration 004) and the defaults that apply where there is no row. Everything that reads
 * settings (the API, the payment engine, the webhook delivery) goes through here, so all see the same
 * defaults.
 */
import type { Sql } from '../../platform/db/database.ts';

export type TipoPessoa = 'PF' | 'PJ';

/** What one key's settings are, after defaults. Names follow the API fields. */
export interface KeySettings {
  txidObrigatorio: boolean;
  recusarTipoPessoa: TipoPessoa | null;
  qrCodeEstaticoRecusarTodos: boolean;
  notificacaoTarifa: boolean;
  notificacaoPagador: boolean;
  notificarPixSemTxid: boolean;
  envioNotificacaoTarifa: boolean;
  envioNotificacaoFavorecido: boolean;
}

/**
 * A key nobody configured receives everything and is notified as the interface describes by default:
 * Pix with a txid only (spec: Events), with the payer, without the fee.
 */
export const KEY_DEFAULTS: KeySettings = Object.freeze({
  txidObrigatorio: false,
  recusarTipoPessoa: null,
  qrCodeEstaticoRecusarTodos: false,
  notificacaoTarifa: false,
  notificacaoPagador: true,
  notificarPixSemTxid: false,
  envioNotificacaoTarifa: false,
  envioNotificacaoFavorecido: true,
});

/** An account receives by bank data unless it says otherwise: a Pix account is reachable by agência/conta. */
export const RECEBER_SEM_CHAVE_DEFAULT = true;

interface KeySettingsRow {
  chave: string;
  txid_obrigatorio: boolean;
  recusar_tipo_pessoa: TipoPessoa | null;
  qrcode_estatico_recusar_todos: boolean;
  webhook_notificar_tarifa: boolean;
  webhook_notificar_pagador: boolean;
  webhook_notificar_pix_sem_txid: boolean;
  envio_notificar_tarifa: boolean;
  envio_notificar_favorecido: boolean;
}

/** Column ↔ field, in one place: reads, writes and the insert's column list all come from it. */
const COLUMNS: [keyof Omit<KeySettingsRow, 'chave'>, keyof KeySettings][] = [
  ['txid_obrigatorio', 'txidObrigatorio'],
  ['recusar_tipo_pessoa', 'recusarTipoPessoa'],
  ['qrcode_estatico_recusar_todos', 'qrCodeEstaticoRecusarTodos'],
  ['webhook_notificar_tarifa', 'notificacaoTarifa'],
  ['webhook_notificar_pagador', 'notificacaoPagador'],
  ['webhook_notificar_pix_sem_txid', 'notificarPixSemTxid'],
  ['envio_notificar_tarifa', 'envioNotificacaoTarifa'],
  ['envio_notificar_favorecido', 'envioNotificacaoFavorecido'],
];
const COLUMN_LIST = COLUMNS.map(([column]) => column).join(', ');

function fromRow(row: KeySettingsRow | undefined | null): KeySettings {
  if (!row) return KEY_DEFAULTS;
  return Object.fromEntries(COLUMNS.map(([column, field]) => [field, row[column]])) as unknown as KeySettings;
}

/**
 * A key's settings row as JSON, for a statement that reads it beside other rows (the settlement path reads the
 * charge, its key and the key's settings in one round trip): `accountId` and `chave` are SQL expressions.
 * Pass what it returns to `keySettingsOf`.
 */
export const keySettingsJsonOf = (accountId: string, chave: string) =>
  `(select row_to_json(s) from pix_key_settings s where s.chave = ${chave} and s.account_id = ${accountId})`;

/** The settings a row from `keySettingsJsonOf` stands for (null: none configured, the defaults). */
export function keySettingsOf(json: unknown): KeySettings {
  return fromRow(json as KeySettingsRow | null);
}

export async function receberSemChave(sql: Sql, accountId: number): Promise<boolean> {
  const { rows } = await sql.query<{ receber_sem_chave: boolean }>(
    'select receber_sem_chave from account_settings where account_id = $1',
    [accountId],
  );
  return rows[0]?.receber_sem_chave ?? RECEBER_SEM_CHAVE_DEFAULT;
}

/** One key's settings. A key of another account (or none) has the defaults: callers resolved the key already. */
export async function keySettings(sql: Sql, accountId: number, chave: string): Promise<KeySettings> {
  const { rows } = await sql.query<KeySettingsRow>(
    `select chave, ${COLUMN_LIST} from pix_key_settings where chave = $1 and account_id = $2`,
    [chave, accountId],
  );
  return fromRow(rows[0]);
}

/** Every active key of the account with its settings (defaults where none were given), oldest key first. */
export async function activeKeySettings(
  sql: Sql,
  accountId: number,
): Promise<{ chave: string; settings: KeySettings }[]> {
  const { rows } = await sql.query<KeySettingsRow & { configured: boolean }>(
    `select k.chave, s.chave is not null as configured, ${COLUMNS.map(([c]) => `s.${c}`).join(', ')}
       from pix_keys k left join pix_key_settings s on s.chave = k.chave and s.account_id = k.account_id
      where k.account_id = $1 and k.removed_at is null order by k.created_at, k.chave`,
    [accountId],
  );
  return rows.map((row) => ({ chave: row.chave, settings: fromRow(row.configured ? row : undefined) }));
}

/** Which of `chaves` are active keys of the account. */
export async function activeKeysAmong(sql: Sql, accountId: number, chaves: string[]): Promise<Set<string>> {
  if (!chaves.length) return new Set();
  const { rows } = await sql.query<{ chave: string }>(
    'select chave from pix_keys where account_id = $1 and chave = any($2) and removed_at is null',
    [accountId, chaves],
  );
  return new Set(rows.map((r) => r.chave));
}

/** PUT semantics: the account's settings become exactly these; keys not given go back to the defaults. */
export async function replaceSettings(
  sql: Sql,
  accountId: number,
  settings: { receberSemChave: boolean; chaves: Map<string, KeySettings> },
  now: Date,
): Promise<void> {
  await sql.query(
    `insert into account_settings (account_id, receber_sem_chave, updated_at) values ($1, $2, $3)
     on conflict (account_id) do update set receber_sem_chave = excluded.receber_sem_chave, updated_at = excluded.updated_at`,
    [accountId, settings.receberSemChave, now],
  );
  await sql.query('delete from pix_key_settings where account_id = $1', [accountId]);
  const placeholders = COLUMNS.map((_, i) => `$${i + 4}`).join(', ');
  for (const [chave, key] of settings.chaves) {
    await sql.query(
      `insert into pix_key_settings (chave, account_id, updated_at, ${COLUMN_LIST}) values ($1, $2, $3, ${placeholders})`,
      [chave, accountId, now, ...COLUMNS.map(([, field]) => key[field])],
    );
  }
}
