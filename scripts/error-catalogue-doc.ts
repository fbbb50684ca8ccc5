/**
 * Writes the error catalogue (src/platform/error-catalogue.ts) into docs/api.md, between the markers
 * `<!-- error-catalogue:start -->` and `<!-- error-catalogue:end -->`:
 * `node --import tsx scripts/error-catalogue-doc.ts`. test/platform/error-catalogue.test.ts fails while the page
 * and the catalogue differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOGUE, FRAMEWORK_4XX, type ErrorEntry, type ErrorGroup } from '../src/platform/error-catalogue.ts';

export const API_DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/api.md');
const START = '<!-- error-catalogue:start -->';
const END = '<!-- error-catalogue:end -->';

const GROUP_HEADINGS: Record<ErrorGroup, string> = {
  shared: 'Raised by the platform for routes of any family (written in that route’s format)',
  problem: '`problem`: Pix (`/v2`…), `/sandbox`',
  named: '`named`: Pix helpers (`/v2/gn`…), `/v1/webhook`, Open Finance, operator',
  wrapper: '`wrapper`: Pix v1 (`/v1/cob`, `/v1/pix`…), `/dict`',
  billing: '`billing`: card billing, tokens, checkout',
  oauth: '`oauth`: `/oauth/token`, `/v1/authorize`',
  html: 'console pages (HTML: the status and the message are shown, the name is not)',
};

const statusText = (status: ErrorEntry['status']) =>
  status === FRAMEWORK_4XX
    ? '400, or the framework’s 4xx'
    : typeof status === 'number'
      ? String(status)
      : status.join(', ');

/** The catalogue as the Markdown that docs/api.md holds between the markers. */
export function catalogueMarkdown(): string {
  const sections = Object.entries(ERROR_CATALOGUE).map(([group, names]) => {
    const rows = Object.entries(names as Record<string, ErrorEntry>).map(
      ([name, entry]) => `| \`${name}\` | ${statusText(entry.status)} | ${entry.title ?? ''} |`,
    );
    return [
      `#### ${GROUP_HEADINGS[group as ErrorGroup]}`,
      '',
      '| name | status | title |',
      '|---|---|---|',
      ...rows,
    ].join('\n');
  });
  return sections.join('\n\n');
}

/** docs/api.md with its catalogue section rewritten from the catalogue. */
export function apiDocWithCatalogue(doc: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/api.md lacks the ${START} … ${END} markers`);
  return `${doc.slice(0, start + START.length)}\n${catalogueMarkdown()}\n${doc.slice(end)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(API_DOC, apiDocWithCatalogue(fs.readFileSync(API_DOC, 'utf8')));
}
