/** Every scenario, in the order they run against each target. */
import type { Scenario } from './scenario.ts';
import { echo, echoSaturated } from './echo.ts';
import { cobCreate, cobCreateAtRate, cobCreateSaturated, cobRead } from './cob.ts';
import { pixList, settlement, settlementSaturated } from './settlement.ts';
import { lotecobvProcessing } from './lotecobv.ts';
import { sendExternal, sendTransfer } from './send.ts';
import { spiInbound, spiInboundSaturated } from './spi-inbound.ts';
import { billingBoletoCreate, billingCardCreate } from './billing.ts';

export const scenarios: Scenario[] = [
  echo,
  echoSaturated,
  cobCreate,
  cobCreateSaturated,
  cobRead,
  cobCreateAtRate,
  spiInbound,
  spiInboundSaturated,
  settlement,
  settlementSaturated,
  pixList,
  sendTransfer,
  sendExternal,
  lotecobvProcessing,
  billingCardCreate,
  billingBoletoCreate,
];

export type { Scenario };

/**
 * Benches that are not request loads: each runs on its own (`node --import tsx bench/scenarios/<file>`) and
 * writes its section of the notes in docs/performance.md.
 */
export const standalone = [
  'reconciliation-report.ts',
  'balance-history.ts',
  'settlement-history.ts',
  'webhook-delivery.ts',
  'webhook-crash.ts',
  'dict-entries.ts',
  'automatic-payments.ts',
  'startup.ts',
  'cobr-due-day.ts',
  'subscription-renewals.ts',
  'testing-helper.ts',
  'node-count.ts',
];
