/** PUT and GET /v2/gn/config: between the API's nested shape and the stored settings. No HTTP here. */
import { addressProblem } from '../../accounts/service.ts';
import { findAccount, updateAccountAddress, type AccountAddress } from '../../accounts/store.ts';
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

/** Every active key of the account is listed, configured or not; the holder's address with them. */
export async function readSettings(sql: Sql, caller: Caller): Promise<SettingsBody> {
  const keys = await activeKeySettings(sql, caller.accountId);
  const { logradouro, cidade, uf, cep } = (await findAccount(sql, caller.accountId))!;
  return {
    endereco: { logradouro, cidade, uf, cep },
    pix: {
      receberSemChave: await receberSemChave(sql, caller.accountId),
      chaves: Object.fromEntries(keys.map(({ chave, settings }) => [chave, toBody(settings)])),
    },
  };
}

const addressRefused = (part: string, reason: string) =>
  invalid('endereco_invalido', `O endereço da conta é inválido: ${part}.`, [{ property: `endereco.${part}`, reason }]);

/**
 * The holder's street, state and postal code change; the city stays: it is the merchant city of every BR
 * Code the account issued, and nodes keep it cached with the name (accounts/store.ts accountDisplay).
 */
async function changeAddress(sql: Sql, accountId: number, endereco: AccountAddress): Promise<void> {
  const problem = addressProblem(endereco);
  if (problem) throw addressRefused(problem.part, problem.reason);
  const { cidade } = (await findAccount(sql, accountId))!;
  if (endereco.cidade !== cidade)
    throw addressRefused('cidade', `a cidade da conta é a dos seus QR Codes, fixada na criação (${cidade}).`);
  await updateAccountAddress(sql, accountId, endereco);
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
    if (body.endereco) await changeAddress(sql, caller.accountId, body.endereco);
    const chaves = new Map(given.map(([chave, settings]) => [chave, fromBody(settings)]));
    await replaceSettings(sql, caller.accountId, { receberSemChave: body.pix.receberSemChave, chaves }, caller.now);
    return readSettings(sql, caller);
  });
}
