/**
 * Playing the payer and firing events from the terminal (sandbox): each command is the API call an
 * integrator could make with the same credentials, so the same scopes, rules and webhooks apply.
 */
import { randomBytes } from 'node:crypto';
import { ApiRefusal, type ApiClient } from './api-client.ts';
import { brasiliaDate, fromEpochDay, isBusinessDay, toEpochDay } from '../platform/calendar.ts';
import { CliError } from './operator-client.ts';

/** What `pixd pay` was handed: a BR Code (starts with the payload format indicator), a txid, or a key. */
export function payTarget(target: string): { pixCopiaECola: string } | { txid: string } | { chave: string } {
  if (target.startsWith('000201')) return { pixCopiaECola: target };
  if (/^[a-zA-Z0-9]{26,35}$/.test(target)) return { txid: target };
  return { chave: target };
}

export async function pay(api: ApiClient, target: string, valor: string | undefined): Promise<string> {
  // A boleto's barcode (44 digits) or linha digitável (47), as printed with dots and spaces or not.
  if (/^\d{44}$|^\d{47}$/.test(target.replace(/[\s.]/g, ''))) {
    if (valor) throw new CliError('a boleto is paid the amount it asks on the day: --valor does not apply');
    const paid = await api.pix('POST', '/sandbox/boleto/pay', { codBarras: target });
    return `paid boleto ${paid.linhaDigitavel} of ${(paid.beneficiario as { nome: string }).nome}: ${paid.valor}, credited at ${paid.creditoEm}`;
  }
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
      const note = await unsent(api, `/v2/webhook/${encodeURIComponent(String(pix.chave))}`, `for ${pix.chave}`);
      return `received ${pix.valor} on ${pix.chave}: endToEndId ${pix.endToEndId}${note}`;
    },
  },
  devolucao: {
    description: 'a Pix received, then refunded in full (the refund reaches the Pix webhook when it settles)',
    async run(api, o) {
      const pix = await receive(api, o);
      const id = randomBytes(8).toString('hex');
      const refund = await api.pix('PUT', `/v2/pix/${pix.endToEndId}/devolucao/${id}`, { valor: pix.valor });
      const note = await unsent(api, `/v2/webhook/${encodeURIComponent(String(pix.chave))}`, `for ${pix.chave}`);
      return `refund ${refund.id} of ${refund.valor} for ${pix.endToEndId}: ${refund.status}${note}`;
    },
  },
  rec: {
    description: 'a new recurrence, whose creation is a /v2/webhookrec event',
    async run(api) {
      const rec = await api.pix('POST', '/v2/rec', recurrence('2099-01-01'));
      const note = await unsent(api, '/v2/webhookrec', 'for recurrences (/v2/webhookrec)');
      return `recurrence ${rec.idRec} ${rec.status}: its /rec event is queued${note}`;
    },
  },
  cobr: {
    description:
      "the last recurring charge's event again (the /v2/webhookcobr webhook); on an account without one, a recurrence the payer approves and a recurring charge on it, whose creation is the event",
    async run(api) {
      const note = await unsent(api, '/v2/webhookcobr', 'for recurring charges (/v2/webhookcobr)');
      try {
        return emitted(await api.pix('POST', '/sandbox/webhooks/cobr', {})) + note;
      } catch (error) {
        if (!(error instanceof ApiRefusal && error.status === 404)) throw error;
      }
      const cobr = await newRecurringCharge(api);
      return `recurring charge ${cobr.txid} ${cobr.status} on recurrence ${cobr.idRec}: its /cobr event is queued${note}`;
    },
  },
  'abertura-conta': {
    description: 'an account-opening event (every /v1/webhook of the account)',
    async run(api) {
      const event = await api.pix('POST', '/sandbox/webhooks/abertura-conta', { evento: 'conta_aberta' });
      if (event.webhooks === 0)
        return `account opening ${event.identificador}: ${event.evento}; no /v1/webhook is registered, so none was sent`;
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

const recurrence = (dataInicial: string) => ({
  vinculo: {
    objeto: 'Teste pixd trigger',
    contrato: 'pixd-trigger',
    devedor: { cpf: '11144477735', nome: 'Pagador Teste' },
  },
  calendario: { dataInicial, periodicidade: 'MENSAL' },
  valor: { valorRec: '10.00' },
  politicaRetentativa: 'NAO_PERMITE',
});

/** Days ahead of the account's today a recurring charge falls due: inside the 2-to-10-day window of creation. */
const RECURRING_DUE_DAYS = 3;

/** A recurrence from today, approved as the sandbox payer, and a recurring charge on it, due in a few days. */
async function newRecurringCharge(api: ApiClient): Promise<Record<string, unknown>> {
  const today = brasiliaDate(new Date(String((await api.pix('GET', '/sandbox/clock')).agora)));
  let due = toEpochDay(today) + RECURRING_DUE_DAYS;
  while (!isBusinessDay(due)) due++;
  const rec = await api.pix('POST', '/v2/rec', recurrence(today));
  await api.pix('POST', `/sandbox/rec/${rec.idRec}/aprovar`);
  return api.pix('POST', '/v2/cobr', {
    idRec: rec.idRec,
    calendario: { dataDeVencimento: fromEpochDay(due) },
    valor: { original: '10.00' },
    ajusteDiaUtil: false,
    recebedor: { conta: api.credentials.account.conta, tipoConta: 'PAGAMENTO', agencia: '0001' },
    devedor: { cpf: '11144477735', nome: 'Pagador Teste' },
  });
}

/**
 * What a trigger adds when the account has no webhook for the event it caused (GET of the registration is a
 * 404): the event happened, but nothing was sent, and the person at the terminal waits for nothing.
 */
async function unsent(api: ApiClient, registration: string, what: string): Promise<string> {
  try {
    await api.pix('GET', registration);
    return '';
  } catch (error) {
    if (!(error instanceof ApiRefusal && error.status === 404)) throw error;
    return `; no webhook is registered ${what}, so none was sent (register one, or run pixd listen)`;
  }
}

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
