/** Webhook load without payments: the delivery benches measure delivery alone. */
import { enqueuePixEvent } from '../src/pix/received/events.ts';
import type { ReceivedPixRow } from '../src/pix/received/store.ts';
import type { Sql } from '../src/platform/db/database.ts';
import { newTxid } from '../src/platform/ids.ts';
import { newEndToEndId } from '../src/platform/institution.ts';
import { SANDBOX_PAY_ORIGIN } from '../src/sandbox/payer.ts';

/**
 * A received Pix that no payment wrote, and its webhook event, inside an open transaction: only the delivery
 * is measured (webhook-delivery.ts, webhook-crash.ts). Returns its endToEndId.
 */
export async function enqueueSyntheticPixEvent(sql: Sql, accountId: number, chave: string, now: Date): Promise<string> {
  const pix: ReceivedPixRow = {
    id: 0,
    end_to_end_id: newEndToEndId(now),
    account_id: accountId,
    charge_id: null,
    txid: newTxid(),
    chave,
    amount_cents: 1234,
    received_at: now,
    pagador_cpf: '11144477735',
    pagador_cnpj: null,
    pagador_nome: 'Bench',
    info_pagador: null,
    components: null,
    origin: SANDBOX_PAY_ORIGIN,
  };
  await enqueuePixEvent(sql, pix, [], now);
  return pix.end_to_end_id;
}
