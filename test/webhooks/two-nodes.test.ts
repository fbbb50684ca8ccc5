/**
 * Issue 26 item 3: two nodes on one PostgreSQL deliver every webhook exactly once in normal running. A
 * successful attempt's record and its delivery's end commit together, so at no moment is a delivered event
 * claimable again (which is how a lost or deadlocked record used to resend it).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freshPostgres, startTestService, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

/** A cluster is several nodes on one PostgreSQL: this runs there in both passes of the suite. */
const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const PAYMENTS = 40;

describe('webhooks on two nodes', () => {
  let database: Awaited<ReturnType<typeof freshPostgres>>;
  let nodes: TestService[] = [];
  let receiver: Receiver;

  before(async () => {
    database = await freshPostgres(ADMIN_URL);
    nodes = await Promise.all([1, 2].map(() => startTestService({ DATABASE_URL: database.url })));
    receiver = await Receiver.start({ clientCaPem: nodes.map((node) => node.caPem).join('\n') });
  });
  after(async () => {
    await receiver?.close();
    for (const node of nodes) await node.close();
    await database?.drop();
  });

  it('delivers each event once, and never leaves a delivered event claimable', async () => {
    // Payments go through the first node; both nodes' lanes claim the deliveries from the one table.
    const [first] = nodes;
    const parties = [await first.newParty(), await first.newParty()];
    for (const [n, party] of parties.entries()) await webhookApi(party).registerPix(`${receiver.url}/p${n}`);
    const db = first.service.ctx.db;
    // Sampled while the deliveries run: a success recorded while its job is still open would be sent again
    // by whichever node claims it next.
    let sampling = true;
    let openDelivered = 0;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from webhook_attempts a join outbox o on o.id = a.outbox_id
            where a.error is null and o.done_at is null`,
        );
        openDelivered = Math.max(openDelivered, rows[0].n);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const paid: string[] = [];
    for (let sent = 0; sent < PAYMENTS; sent += 10)
      paid.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, async (_, k) => (await webhookApi(parties[k % 2]).payNewCharge()).endToEndId),
        )),
      );
    // The registrations' handshake calls went to `/p0` and `/p1` themselves.
    const pixCalls = () => receiver.calls.filter((call) => call.path.endsWith('/pix'));
    await waitFor(async () => pixCalls().length >= PAYMENTS, `${PAYMENTS} webhooks`);
    await waitFor(async () => {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from outbox where topic = 'webhook.pix' and done_at is null`,
      );
      return rows[0].n === 0;
    }, 'every delivery done');
    sampling = false;
    await sampler;

    const received = pixCalls().map((call) => call.body.pix[0].endToEndId as string);
    assert.deepEqual([...received].sort(), [...paid].sort(), 'each payment notified exactly once');
    assert.equal(openDelivered, 0, 'a recorded success with its delivery still open');
    const { rows } = await db.query<{ outbox_id: number; n: number }>(
      `select outbox_id, count(*)::int as n from webhook_attempts where error is null group by outbox_id having count(*) > 1`,
    );
    assert.deepEqual(rows, [], 'one successful attempt per delivery');
  });
});
