/**
 * `pixd schedule create`: flags -> the operator API's body (POST /operator/schedules), and the same
 * schema check the server applies, for when the CLI opens the database itself (no server running).
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { Database } from '../../platform/db/database.ts';
import type { Clock } from '../../platform/clock.ts';
import { ApiError } from '../../platform/errors.ts';
import { ScheduleCreate, type ScheduleView } from './schemas.ts';
import { ScheduleCliError } from './cli-flags.ts';
import { SCHEDULE_INVALID, createSchedule } from './service.ts';
import { accountIdByConta } from './store.ts';

const validate = addFormats.default(new Ajv({ allErrors: true, strict: false })).compile(ScheduleCreate);

/** No server owns the database: check the body as the server would, then create directly. */
export async function createScheduleOffline(
  db: Database,
  clock: Clock,
  conta: string,
  body: ScheduleCreate,
): Promise<ScheduleView> {
  if (!validate(body)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ');
    throw new ScheduleCliError(`${SCHEDULE_INVALID}: ${problems}`);
  }
  const accountId = await accountIdByConta(db, conta);
  if (accountId === undefined) throw new ScheduleCliError(`no account ${conta}`);
  try {
    return await db.tx((sql) => createSchedule(sql, accountId, clock.forAccount(accountId).now(), body));
  } catch (error) {
    if (error instanceof ApiError) throw new ScheduleCliError(`${error.errorName}: ${error.detail}`);
    throw error;
  }
}

export function describeSchedule(view: ScheduleView): string {
  return `scheduled Pix ${view.end_to_end_id}${view.txid ? ` (txid ${view.txid})` : ''}: ${view.value.toFixed(2)} to ${view.receiver_name} (${view.end_user_account}) at ${view.scheduling_date}, status ${view.status}`;
}
