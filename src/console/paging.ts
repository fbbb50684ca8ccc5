/**
 * Keyset paging, newest first, as every console list pages: a cursor is the last row's (time, id), written
 * into the next page's link as `<ISO time>_<id>`; the next page holds the rows strictly older. A page costs
 * the same at any depth (an index on (account, time, id) is walked from the cursor), where an offset would
 * read and drop every row before it.
 */
import { html, type Html } from './render.ts';
import type { Cursor } from './store.ts';

/** The cursor a link carried, or undefined when it is no cursor (a person's edit: the first page, not an error). */
export function cursorOf(text: string | undefined): Cursor | undefined {
  const [at, id] = (text ?? '').split('_');
  if (!at || !/^\d{1,18}$/.test(id ?? '')) return undefined;
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? undefined : { at: date, id: Number(id) };
}

export const cursorText = (at: Date, id: number) => `${at.toISOString()}_${id}`;

/**
 * The link on to older rows, or undefined on the page that holds the oldest. Each list writes its own link
 * from the last row: its cursor's parameter, form and place in the query differ (card charges' is the id alone).
 */
export function olderLink<Row>(
  page: { rows: readonly Row[]; more: boolean },
  linkTo: (last: Row) => string,
): string | undefined {
  const last = page.rows.at(-1);
  return page.more && last ? linkTo(last) : undefined;
}

/** Links back to the newest page (when this is a later one) and on to older rows (when there are more). */
export function pager(newest: string | undefined, older: string | undefined): Html | '' {
  if (!newest && !older) return '';
  return html`<p class="pager">${newest ? html`<a href="${newest}">Mais recentes</a>` : html`<span></span>`}${older ? html`<a href="${older}" rel="next">Mais antigas →</a>` : ''}</p>`;
}
