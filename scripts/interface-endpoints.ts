/**
 * Regenerates src/platform/interface-endpoints.json from the interface specification
 * (`node --import tsx scripts/interface-endpoints.ts [path/to/interface.md]`, default ../shared/spec/interface.md):
 * each endpoint's row (section, scope, request, success) and the error rows naming it, which the OpenAPI
 * document shows as the operation's description (src/platform/openapi.ts). The output is committed: the
 * server never reads the specification itself.
 */
import fs from 'node:fs';
import path from 'node:path';

const source = path.resolve(process.argv[2] ?? '../shared/spec/interface.md');
const target = path.resolve('src/platform/interface-endpoints.json');
const lines = fs.readFileSync(source, 'utf8').split('\n');

const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
const METHOD_PATH = /^(GET|POST|PUT|PATCH|DELETE) (\/\S+)$/;
const key = (method: string, route: string) => `${method} ${route.replace(/\/$/, '')}`;

const endpoints: Record<
  string,
  { section: string; scope: string; request: string; success: string; errors: string[] }
> = {};
let section = '';
let inEndpoints = false;
for (const line of lines) {
  if (line.startsWith('## ')) inEndpoints = line === '## Endpoints';
  if (line.startsWith('### ')) section = line.slice(4).trim();
  if (!line.startsWith('| ')) continue;
  const row = cells(line);
  if (inEndpoints && row.length === 5 && /^(GET|POST|PUT|PATCH|DELETE)$/.test(row[0])) {
    const [method, route, scope, request, success] = row;
    const id = key(method, route);
    // A route listed twice (a charge's split link under "Payment split") keeps both rows.
    const known = endpoints[id];
    if (known) {
      known.request += ` — ${section}: ${request}`;
      known.success += ` — ${success}`;
    } else endpoints[id] = { section, scope, request, success, errors: [] };
    continue;
  }
  const where = METHOD_PATH.exec(row[0] ?? '');
  if (where && row.length === 3) endpoints[key(where[1], where[2])]?.errors.push(`${row[1]}: ${row[2]}`);
}
fs.writeFileSync(target, `${JSON.stringify(endpoints, null, 2)}\n`);
process.stderr.write(`${Object.keys(endpoints).length} endpoints written to ${target}\n`);
