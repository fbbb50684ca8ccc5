/** PUT and GET /v2/gn/config: between the API's nested shape and the stored settings. No HTTP here. */
import type { Database, Sql } from '../../platform/db/database.ts';
import { invalid } from '../../platform/errors.ts';
import type { Caller } from '../shared/caller.ts';
import type { KeySettingsBody, SettingsBody } from './schemas.ts';
import {
  KEY_DEFAULTS,
  activeKeySettings,
  activeKeysAmong,
  receberSemChave,
  replaceSettings,
  type KeySettings,
  type TipoPessoa,
} from './store.ts';

/** Absent optional objects take the defaults, field by field. */
function fromBody(body: KeySettingsBody): KeySettings {
  const { recebimento, envio } = body;
  return {
    txidObrigatorio: recebimento.txidObrigatorio,
    // The schema's pattern admits PF and PJ only.
    recusarTipoPessoa: (recebimento.recusarTipoPessoa as TipoPessoa | undefined) ?? null,
    qrCodeEstaticoRecusarTodos: recebimento.qrCodeEstatico.recusarTodos,
    notificacaoTarifa: recebimento.webhook?.notificacao?.tarifa ?? KEY_DEFAULTS.notificacaoTarifa,
    notificacaoPagador: recebimento.webhook?.notificacao?.pagador ?? KEY_DEFAULTS.notificacaoPagador,
    notificarPixSemTxid: recebimento.webhook?.notificar?.pixSemTxid ?? KEY_DEFAULTS.notificarPixSemTxid,
    envioNotificacaoTarifa: envio?.webhook.notificacao.tarifa ?? KEY_DEFAULTS.envioNotificacaoTarifa,
    envioNotificacaoFavorecido: envio?.webhook.notificacao.favorecido ?? KEY_DEFAULTS.envioNotificacaoFavorecido,
  };
}

/** Reads show every field, defaults included, so what is in force never has to be guessed. */
function toBody(s: KeySettings): KeySettingsBody {
  return {
    recebimento: {
      txidObrigatorio: s.txidObrigatorio,
      ...(s.recusarTipoPessoa && { recusarTipoPessoa: s.recusarTipoPessoa }),
      qrCodeEstatico: { recusarTodos: s.qrCodeEstaticoRecusarTodos },
      webhook: {
        notificacao: { tarifa: s.notificacaoTarifa, pagador: s.notificacaoPagador },
        notificar: { pixSemTxid: s.notificarPixSemTxid },
      },
    },
    envio: { webhook: { notificacao: { tarifa: s.envioNotificacaoTarifa, favorecido: s.envioNotificacaoFavorecido } } },
  };
}

/** Every active key of the account is listed, configured or not. */
export async function readSettings(sql: Sql, caller: Caller): Promise<SettingsBody> {
  const keys = await activeKeySettings(sql, caller.accountId);
  return {
    pix: {
      receberSemChave: await receberSemChave(sql, caller.accountId),
      chaves: Object.fromEntries(keys.map(({ chave, settings }) => [chave, toBody(settings)])),
    },
  };
}

/**
 * Replaces the account's settings. Every key named must be an active key of the caller: settings for a
 * key the account does not hold (or removed) would silently do nothing, so they are refused whole.
 */
export async function writeSettings(db: Database, caller: Caller, body: SettingsBody): Promise<SettingsBody> {
  const given = Object.entries(body.pix.chaves ?? {});
  return db.tx(async (sql) => {
    const held = await activeKeysAmong(
      sql,
      caller.accountId,
      given.map(([chave]) => chave),
    );
    const foreign = given.filter(([chave]) => !held.has(chave));
    if (foreign.length) {
      throw invalid(
        'chave_invalida',
        'As configurações só podem nomear chaves ativas da conta.',
        foreign.map(([chave]) => ({
          property: `pix.chaves.${chave}`,
          reason: 'a chave não é uma chave ativa deste usuário recebedor.',
        })),
      );
    }
    const chaves = new Map(given.map(([chave, settings]) => [chave, fromBody(settings)]));
    await replaceSettings(sql, caller.accountId, { receberSemChave: body.pix.receberSemChave, chaves }, caller.now);
    return readSettings(sql, caller);
  });
}
