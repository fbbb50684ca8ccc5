/** Billing dates as the interface writes them: `YYYY-MM-DD HH:MM:SS` and `YYYY-MM-DD`, Brasília time (UTC−03:00, no DST). */
const BRASILIA_OFFSET_MS = -3 * 3600_000;

const brasilia = (at: Date) => new Date(at.getTime() + BRASILIA_OFFSET_MS).toISOString();
export const billingDateTime = (at: Date) => brasilia(at).slice(0, 19).replace('T', ' ');
export const billingDate = (at: Date) => brasilia(at).slice(0, 10);
export const DAY_MS = 86400_000;
