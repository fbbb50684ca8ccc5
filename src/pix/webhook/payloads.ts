/**
 * The webhook bodies this service sends and the payloads of the outbox jobs that carry them, in one file:
 * several modules build them (received Pix and their refunds, sent scheduled Pix, resends, recurrence and
 * automatic-charge events, account-opening callbacks) and the delivery handlers read them. Types only.
 */
import type { OpeningEvent } from '../../opening/schemas.ts';
import type { PixView } from '../received/view.ts';
import type { AccountWebhookKind } from './store.ts';

export type { PixView };

/** The receiver of a sent Pix as the schedule knows it, in the creation body's shape. */
export type SentPixFavorecido = { nome: string } & (
  | { chave: string }
  | { contaBanco: { ispb: string; agencia: string; conta: string } }
);

/** A sent Pix in a webhook: Bacen `Pix` fields that apply to a sent Pix, plus Efí's `gnExtras`. */
export interface SentPixView {
  endToEndId: string;
  valor: string;
  horario: string;
  /** The sender's own key (whose webhook this is). */
  chave: string;
  /** Sends through the API (src/pix/send) report their outcome; a finished scheduled Pix carries none. */
  status?: 'REALIZADO' | 'NAO_REALIZADO' | 'EM_PROCESSAMENTO';
  /** Efí's extension: the receiver, and for API sends their idEnvio and, when refused, why. */
  gnExtras: { favorecido: SentPixFavorecido; idEnvio?: string; erro?: { motivo: string } };
}

/** Bacen WebhookPixBody, as POSTed: each Pix shaped by the key's notification settings. */
export interface WebhookPixBody {
  pix: unknown[];
}

/**
 * The job of a `webhook.pix` event: a received Pix (or its refunds), or with `envio` a Pix the account sent.
 * The body is built from it at delivery (src/pix/webhook/notification.ts).
 */
export type PixEventPayload = { accountId: number; chave: string | null; txid: string | null } & (
  | { envio?: false; pix: PixView[] }
  | { envio: true; pix: SentPixView[] }
);

/** Bacen WebhookRecBody. */
export interface WebhookRecBody {
  recs: unknown[];
}

/** Bacen WebhookCobRBody. */
export interface WebhookCobrBody {
  cobsr: unknown[];
}

/** The job of a recurrence (`rec`) or automatic-charge (`cobr`) event: the body as it is POSTed. */
export interface AccountEventPayload {
  accountId: number;
  kind: AccountWebhookKind;
  body: WebhookRecBody | WebhookCobrBody;
}

/** The account-opening callback body (spec: Events, account-opening callbacks). */
export interface OpeningCallbackBody {
  contaSimplificada: { identificador: string };
  evento: OpeningEvent;
}

/** The job of one account-opening callback, to one of the account's opening webhooks. */
export interface OpeningEventPayload {
  accountId: number;
  webhookId: string;
  body: OpeningCallbackBody;
}
