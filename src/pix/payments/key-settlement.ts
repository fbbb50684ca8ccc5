/**
 * The settlement path of a Pix to a key (docs/ledger.md, "The settlement path"), as the charges' one: one read
 * of everything the payment is decided on — the key, its row version, its settings, the ledger account ids —
 * taken without a lock, shared by concurrent payments and kept (`KeyReads`); the engine's rules applied to it;
 * then one write that pays only while the key and its settings are the versions read (the caller's statement:
 * the SPI boundary claims its message in it, src/spi/credit.ts). Anything the read cannot settle alone — a key not here or removed, one
 * whose participant must confirm, a txid (a split may be linked to it), a receiver's first payment (its ledger
 * account does not exist yet), a setting that refuses the Pix — is left to the engine's locked path
 * (`receivePix`), which decides it, refusals included, one statement per step.
 */
import type { Sql } from '../../platform/db/database.ts';
import { GroupCommit, perDatabase } from '../../platform/db/group-commit.ts';
import { LIMITS } from '../../platform/limits.ts';
import { pixEventJob } from '../received/events.ts';
import { keyRefusal } from '../settings/receiving.ts';
import { receivedRow } from './engine.ts';
import { readKeysForSettlement, type KeyForSettlement, type PaymentWrite } from './store.ts';
import type { IncomingPix } from './types.ts';

export type { KeyForSettlement } from './store.ts';

/** A decided payment to a key, for the caller's write statement. */
export interface KeySettlement extends PaymentWrite {
  key: { chave: string; version: string };
}

/**
 * The keys' reads, coalesced as the charges' are (`settlementReaderFor`: no lock, so sharing a statement changes
 * only the round trips), and kept: a key a payment was settled on is read again only after its write found it
 * changed (`forget`). A kept read is only ever a proposal: the write pays only while the key and its settings
 * are the versions read, so a stale read costs a payment the locked path, never a rule (the ledger account ids
 * it holds never change).
 */
export class KeyReads {
  private readonly kept = new Map<string, KeyForSettlement>();
  private readonly reader: GroupCommit<string, KeyForSettlement | undefined>;

  constructor(sql: Sql) {
    this.reader = new GroupCommit({
      write: (chaves) => readKeysForSettlement(sql, chaves),
      statementsInFlight: LIMITS.keySettlementStatementsInFlight,
      batchMax: LIMITS.settlementBatchMax,
    });
  }

  async read(chave: string): Promise<KeyForSettlement | undefined> {
    return this.kept.get(chave) ?? this.reader.submit(chave);
  }

  /** A read a payment was just settled on. */
  keep(key: KeyForSettlement): void {
    if (this.kept.has(key.chave)) return;
    // The oldest kept read makes room (a Map iterates in insertion order).
    if (this.kept.size >= LIMITS.keySettlementReadsKept) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key.chave, key);
  }

  forget(chave: string): void {
    this.kept.delete(chave);
  }
}

export const keyReadsFor = perDatabase((sql) => new KeyReads(sql));

/**
 * The engine's rules for a Pix to a key, on the key as read: the payment to write, or undefined when the locked
 * path must decide it (module comment).
 */
export function keySettlement(
  key: KeyForSettlement | undefined,
  incoming: IncomingPix & { target: { kind: 'key' }; amountCents: number },
  now: Date,
): KeySettlement | undefined {
  const { target } = incoming;
  if (!key || key.removed_at || key.confirm_incoming || target.txid || target.fromStaticQrCode) return undefined;
  if (key.external_ledger_id === null || key.available_ledger_id === null) return undefined;
  if (!Number.isSafeInteger(incoming.amountCents) || incoming.amountCents <= 0) return undefined;
  const refusal = keyRefusal(key.key_settings, {
    accountId: key.account_id,
    chave: key.chave,
    txid: null,
    payer: incoming.payer,
    fromStaticQrCode: false,
  });
  if (refusal) return undefined;
  const pix = receivedRow(
    incoming,
    now,
    { accountId: key.account_id, chargeId: null, txid: null, chave: key.chave },
    incoming.amountCents,
    undefined,
  );
  return {
    key: { chave: key.chave, version: key.version },
    pix,
    ledger: { externalId: key.external_ledger_id, availableId: key.available_ledger_id },
    event: pixEventJob(pix, [], now),
  };
}
