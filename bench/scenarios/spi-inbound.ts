/**
 * Inbound pacs.008 settled per second (issue 27): the institution's SPI gateway delivering Pix to the keys of
 * pixd's accounts, each message a fresh MsgId and end-to-end id, over the gateway's client certificate, each
 * answered with the pacs.002 after the credit commits (validation against the XSD, the claim of the message,
 * the payment engine's key path, the ledger entry and the webhook event, in one transaction). Compared in the
 * report with POST /v2/cob on the same target in the same run. A 200 could carry an RJCT; none does here (fresh
 * ids, keys without receiving settings), and the ledger verification after the run counts what was credited.
 */
import { RECEIVER_ISPB, newEndToEndId } from '../../src/platform/institution.ts';
import { randomAlphanumeric } from '../../src/platform/ids.ts';
import { buildCreditTransfer, newMsgId } from '../../src/spi/messages.ts';
import type { Connection } from '../load.ts';
import type { Settings } from '../settings.ts';
import { PIXD_TARGETS, type Scenario } from './scenario.ts';

const PAYER_ISPB = '99999009';

/** A pacs.008 to `chave` whose MsgId and end-to-end id each request replaces (building one validates it). */
function template(chave: string): { xml: string; msgId: string; endToEndId: string } {
  const now = new Date();
  const msgId = newMsgId(PAYER_ISPB);
  const endToEndId = newEndToEndId(now, PAYER_ISPB);
  const xml = buildCreditTransfer({
    msgId,
    createdAt: now,
    endToEndId,
    amountCents: 100,
    acceptedAt: now,
    debtor: { ispb: PAYER_ISPB, nome: 'Pagador Bench', cpf: '11144477735', conta: '1', tipoConta: 'CACC' },
    creditor: { ispb: RECEIVER_ISPB, chave },
  });
  return { xml, msgId, endToEndId };
}

function spiInboundAt(id: string, count: (s: Settings) => number): Scenario {
  return {
    id,
    mode: 'max',
    title: 'POST /spi/mensagens (inbound pacs.008 to a key)',
    load: (s) => `max, ${count(s)} connections`,
    targets: PIXD_TARGETS,
    async plan(target, s) {
      if (!target.spiGateway) throw new Error('the target has no SPI gateway identity');
      const tls = target.spiGateway;
      const connections: Connection[] = Array.from({ length: count(s) }, (_, i) => {
        const { xml, msgId, endToEndId } = template(target.parties[i % target.parties.length].chave);
        const request = {
          method: 'POST',
          path: '/spi/mensagens',
          headers: { 'content-type': 'application/xml' },
          body: xml,
        };
        return {
          tls,
          request,
          sequence: [
            {
              ...request,
              // Fresh ids on every request: a copy would be answered from its record without settling anything.
              setupRequest: (req) => ({
                ...req,
                body: xml
                  .replace(msgId, `M${PAYER_ISPB}${randomAlphanumeric(23)}`)
                  .replace(endToEndId, `${endToEndId.slice(0, 21)}${randomAlphanumeric(11)}`),
              }),
            },
          ],
        };
      });
      return { url: target.url, durationS: s.durationS, expectStatus: 200, connections };
    },
  };
}

export const spiInbound = spiInboundAt('spi-inbound', (s) => s.connections);
/** As POST /v2/cob's max: more messages in flight fill the shared statements (group commit). */
export const spiInboundSaturated = spiInboundAt('spi-inbound-saturated', (s) => s.saturationConnections);
