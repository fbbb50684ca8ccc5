/**
 * What a Pix webhook says, per key: the key's settings (`PUT /v2/gn/config`, read through
 * src/pix/settings/store.ts with its defaults) shape it, docs/keys-settings.md.
 *   Received Pix (`recebimento.webhook`): whether a Pix not tied to a txid is notified
 *   (`notificar.pixSemTxid`), whether the payer goes in it (`notificacao.pagador`), whether the fee is shown
 *   (`notificacao.tarifa`).
 *   Sent Pix (`envio.webhook.notificacao`): always notified; whether the receiver goes in it (`favorecido`)
 *   and whether the fee is shown (`tarifa`).
 */
import type { Sql } from '../../platform/db/database.ts';
import { keySettings, type KeySettings } from '../settings/store.ts';
import type { PixEventPayload, PixView, SentPixView, WebhookPixBody } from './payloads.ts';

export interface PixNotificationSettings {
  /** Notify Pix not tied to a txid (static codes without txid, plain transfers to the key). Spec default: no. */
  pixSemTxid: boolean;
  /** Include the payer (`pagador`) in each Pix. */
  pagador: boolean;
  /** Show the fee charged on each Pix, in Efí's extension object `gnExtras` (not a Bacen `Pix` field). */
  tarifa: boolean;
  /** Sent Pix: include the receiver (`gnExtras.favorecido`), show the fee (`gnExtras.tarifa`). */
  envio: { favorecido: boolean; tarifa: boolean };
}

/** pixd charges no fee on Pix, received or sent, yet, so the fee shown is the true one: zero. */
export const PIX_FEE = '0.00';

export async function notificationSettings(
  sql: Sql,
  accountId: number,
  chave: string,
): Promise<PixNotificationSettings> {
  return notificationSettingsOf(await keySettings(sql, accountId, chave));
}

/** What a key's settings say about its webhook notifications. */
export function notificationSettingsOf(settings: KeySettings): PixNotificationSettings {
  return {
    pixSemTxid: settings.notificarPixSemTxid,
    pagador: settings.notificacaoPagador,
    tarifa: settings.notificacaoTarifa,
    envio: { favorecido: settings.envioNotificacaoFavorecido, tarifa: settings.envioNotificacaoTarifa },
  };
}

/**
 * Whether an event is notified at all: a sent Pix always (the sender named its key for that); a received
 * one from a static code only when tied to a txid, unless `pixSemTxid` (spec: Events).
 */
export function isNotified(
  event: { txid: string | null | undefined; envio?: boolean },
  settings: PixNotificationSettings,
): boolean {
  return Boolean(event.envio) || Boolean(event.txid) || settings.pixSemTxid;
}

function received(p: PixView, settings: PixNotificationSettings): unknown {
  const { pagador: _pagador, ...withoutPagador } = p;
  const shown = settings.pagador ? p : withoutPagador;
  return settings.tarifa ? { ...shown, gnExtras: { tarifa: PIX_FEE } } : shown;
}

function sent({ gnExtras: { favorecido, ...always }, ...p }: SentPixView, { envio }: PixNotificationSettings): unknown {
  // idEnvio and erro (API sends) are always shown; the receiver and the fee as the settings say.
  const extras = {
    ...always,
    ...(envio.tarifa && { tarifa: PIX_FEE }),
    ...(envio.favorecido && { favorecido }),
  };
  return Object.keys(extras).length ? { ...p, gnExtras: extras } : p;
}

/** Bacen WebhookPixBody: `{pix: [Pix]}`; a received Pix with its whole refunds array. */
export function pixWebhookBody(event: PixEventPayload, settings: PixNotificationSettings): WebhookPixBody {
  if (event.envio) return { pix: event.pix.map((p) => sent(p, settings)) };
  return { pix: event.pix.map((p) => received(p, settings)) };
}
