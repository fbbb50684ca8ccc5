/**
 * Playing the payer and firing events from the terminal (sandbox): each command is the API call an
 * integrator could make with the same credentials, so the same scopes, rules and webhooks apply.
 */
import { randomBytes } from 'node:crypto';
import type { ApiClient } from './api-client.ts';
import { CliError } from './operator-client.ts';

/** What `pixd pay` was handed: a BR Code (starts with the payload format indicator), a txid, or a key. */
export function payTarget(target: string): { pixCopiaECola: string } | { txid: string } | { chave: string } {
  if (target.startsWith('000201')) return { pixCopiaECola: target };
  if (/^[a-zA-Z0-9]{26,35}$/.test(target)) return { txid: target };
  return { chave: target };
}

export async function pay(api: ApiClient, target: string, valor: string | undefined): Promise<string> {
  const pix = await api.pix('POST', '/sandbox/pix/pay', { ...payTarget(target), ...(valor && { valor }) });
  return `paid ${pix.valor} → ${pix.chave ?? target}: endToEndId ${pix.endToEndId}${pix.txid ? `, txid ${pix.txid}` : ''}`;
}

const DURATION_UNITS_SECONDS: Record<string, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };

/** "3d", "2h", "1d12h", "90m", "45s", or plain seconds; what the clock routes take is whole seconds. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d+)([dhms])/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text)
    throw new CliError(`"${text}" is not a duration: use a number with d, h, m or s, like 3d, 2h, 1d12h or 90m`);
  return parts.reduce((seconds, [, amount, unit]) => seconds + Number(amount) * DURATION_UNITS_SECONDS[unit], 0);
}

const describeClock = (clock: Record<string, unknown>) =>
  `sandbox clock: ${clock.agora} (${clock.deslocamentoSegundos} s ahead of real time)`;

export async function clock(api: ApiClient, action: 'show' | 'reset' | { advance: string }): Promise<string> {
  if (action === 'show') return describeClock(await api.pix('GET', '/sandbox/clock'));
  if (action === 'reset') return describeClock(await api.pix('POST', '/sandbox/clock/reset', {}));
  return describeClock(await api.pix('POST', '/sandbox/clock/advance', { segundos: parseDuration(action.advance) }));
}

export interface TriggerOptions {
  /** The key that receives (default: the account's first). */
  chave?: string;
  valor?: string;
  /** Card charges notify a URL of the charge's own, not a registered webhook. */
  notificationUrl?: string;
}

/** Every webhook kind pixd sends, and the API calls that make it happen. */
export const TRIGGERS: Record<
  string,
  { description: string; run(api: ApiClient, o: TriggerOptions): Promise<string> }
> = {
  pix: {
    description: "a charge on one of the account's keys, paid (the key's Pix webhook)",
    async run(api, o) {
      const pix = await receive(api, o);
      return `received ${pix.valor} on ${pix.chave}: endToEndId ${pix.endToEndId}`;
    },
  },
  devolucao: {
    description: 'a Pix received, then refunded in full (the refund reaches the Pix webhook when it settles)',
    async run(api, o) {
      const pix = await receive(api, o);
      const id = randomBytes(8).toString('hex');
      const refund = await api.pix('PUT', `/v2/pix/${pix.endToEndId}/devolucao/${id}`, { valor: pix.valor });
      return `refund ${refund.id} of ${refund.valor} for ${pix.endToEndId}: ${refund.status}`;
    },
  },
  rec: {
    description: 'a new recurrence, whose creation is a /v2/webhookrec event',
    async run(api) {
      const rec = await api.pix('POST', '/v2/rec', {
        vinculo: {
          objeto: 'Teste pixd trigger',
          contrato: 'pixd-trigger',
          devedor: { cpf: '11144477735', nome: 'Pagador Teste' },
        },
        calendario: { dataInicial: '2099-01-01', periodicidade: 'MENSAL' },
        valor: { valorRec: '10.00' },
        politicaRetentativa: 'NAO_PERMITE',
      });
      return `recurrence ${rec.idRec} ${rec.status}: its /rec event is queued`;
    },
  },
  cobr: {
    description: "the last recurring charge's event again (the /v2/webhookcobr webhook)",
    run: async (api) => emitted(await api.pix('POST', '/sandbox/webhooks/cobr', {})),
  },
  'abertura-conta': {
    description: 'an account-opening event (every /v1/webhook of the account)',
    async run(api) {
      const event = await api.pix('POST', '/sandbox/webhooks/abertura-conta', { evento: 'conta_aberta' });
      return `account opening ${event.identificador}: ${event.evento} to ${event.webhooks} webhook(s)`;
    },
  },
  cobranca: {
    description: 'a card-billing charge whose creation notifies --notification-url',
    async run(api, o) {
      if (!o.notificationUrl) throw new CliError('trigger cobranca needs --notification-url <url>');
      const answer = await api.billing('POST', '/v1/charge', {
        items: [{ name: 'Evento de teste', value: 1000, amount: 1 }],
        metadata: { notification_url: o.notificationUrl },
      });
      const charge = answer.data as { charge_id: number; status: string };
      return `billing charge ${charge.charge_id} (${charge.status}): notification to ${o.notificationUrl}`;
    },
  },
};

/**
 * A Pix received through a charge on the key, so it carries a txid: a Pix without one is notified only
 * when the account's settings ask for it (pixSemTxid), and a trigger must always reach the webhook.
 */
async function receive(api: ApiClient, o: TriggerOptions): Promise<Record<string, unknown>> {
  const chave = o.chave ?? api.credentials.chaves[0];
  if (!chave) throw new CliError('the account has no key to receive on: name one with --chave');
  const cob = await api.pix('POST', '/v2/cob', {
    calendario: { expiracao: 3600 },
    valor: { original: o.valor ?? '12.34' },
    chave,
    solicitacaoPagador: 'pixd trigger',
  });
  try {
    return await api.pix('POST', '/sandbox/pix/pay', { txid: cob.txid });
  } catch (error) {
    // Amounts up to R$ 10.00 are paid by the sandbox itself a moment after creation: it may have been first.
    const paid = (await api.pix('GET', `/v2/cob/${cob.txid}`)) as { pix?: Record<string, unknown>[] };
    if (paid.pix?.[0]) return paid.pix[0];
    throw error;
  }
}

const emitted = (event: Record<string, unknown>) => `${event.topico} queued as delivery ${event.entrega}`;
