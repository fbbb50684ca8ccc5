/** GET /v1/notification/:token: the charge's status events, and the query that marks them delivered. */
import type { Database } from '../../platform/db/database.ts';
import { LIMITS } from '../../platform/limits.ts';
import { billingError } from '../shared/errors.ts';
import { brasiliaDate, brasiliaDateTime, DAY_MS } from '../../platform/calendar.ts';
import { findCharge, historyOf, updateCharge, type ChargeRow } from '../charges/store.ts';
import { findSubscription } from '../subscriptions/store.ts';

export interface NotificationEvent {
  id: number;
  /**
   * `subscription_charge`: a charge of a subscription (its identifiers then name the subscription too);
   * `subscription`: the subscription's own status, on its first charge's token.
   */
  type: 'charge' | 'carnet' | 'carnet_charge' | 'subscription' | 'subscription_charge';
  custom_id: string | null;
  status: { current: string; previous: string | null };
  identifiers: { charge_id?: number; carnet_id?: number; subscription_id?: number };
  created_at: string;
  received_by_bank_at?: string;
  value?: number;
}

/** A charge's own event, a carnê's, or a carnê's event about one of its parcels (docs/billing.md, "Carnês"). */
function eventSubject(row: ChargeRow, subject: number | null): Pick<NotificationEvent, 'type' | 'identifiers'> {
  if (row.kind !== 'carnet') return { type: 'charge', identifiers: { charge_id: row.id } };
  if (subject === null) return { type: 'carnet', identifiers: { carnet_id: row.id } };
  return { type: 'carnet_charge', identifiers: { carnet_id: row.id, charge_id: Number(subject) } };
}

export async function readNotification(
  db: Database,
  accountId: number,
  token: string,
  now: Date,
): Promise<NotificationEvent[]> {
  return db.tx(async (sql) => {
    const charge = await findCharge(sql, { accountId, notificationToken: token });
    if (!charge)
      throw billingError(404, 'notification_not_found', 'Token de notificação não encontrado para esta conta.');
    const events = await historyOf(sql, charge.id, {
      eventsSince: new Date(now.getTime() - LIMITS.billingNotificationHistoryDays * DAY_MS),
    });
    const newest = Math.max(0, ...events.map((e) => e.event_id!));
    // Querying the token is what delivers the notification (spec: Billing notifications 3).
    if (newest > charge.notification_queried_event) {
      await sql.query(
        'update billing_charges set notification_queried_event = greatest(notification_queried_event, $2) where id = $1',
        [charge.id, newest],
      );
      await updateCharge(sql, charge.id, {}, now);
    }
    const subscription = charge.recurrent ? await findSubscription(sql, { chargeId: charge.id }) : undefined;
    return events.map((e) => ({
      id: e.event_id!,
      ...(e.subject_subscription_id !== null
        ? { type: 'subscription' as const, identifiers: { subscription_id: Number(e.subject_subscription_id) } }
        : subscription
          ? {
              type: 'subscription_charge' as const,
              identifiers: { charge_id: charge.id, subscription_id: subscription.id },
            }
          : eventSubject(charge, e.subject_charge_id)),
      custom_id: charge.custom_id,
      status: { current: e.status!, previous: e.previous_status },
      created_at: brasiliaDateTime(e.created_at),
      ...(e.received_by_bank_at && { received_by_bank_at: brasiliaDate(e.received_by_bank_at) }),
      ...(e.value_cents !== null && { value: e.value_cents }),
    }));
  });
}
