/**
 * Input no schema spells out but the database refuses: NUL characters and lone UTF-16 surrogates in text
 * (PostgreSQL text and jsonb cannot hold them) and integers past what the columns hold. Checked for every
 * route before its own validation, and reported as a schema violation naming the property, so each family
 * renders it in its own error format instead of the statement failing with a 500.
 */
import type { FastifyRequest, RouteOptions } from 'fastify';
import { LIMITS } from './limits.ts';

/** NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this looks for.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const REASON = 'contém caractere não permitido (NUL ou surrogate UTF-16 isolado)';

/**
 * JSON-pointer path of the first string (or object key) that cannot be stored, if any. Iterative, so a
 * deeply nested body cannot exhaust the stack.
 */
export function findUnstorableText(value: unknown): string | undefined {
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length) {
    const [current, path] = pending.pop()!;
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current)) return path;
    } else if (current && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        const childPath = `${path}/${key}`;
        if (UNSTORABLE.test(key)) return childPath;
        pending.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/** A preValidation hook: the error has Fastify's validation shape, so `toApiError` renders it per family. */
export async function rejectUnstorableText(request: FastifyRequest): Promise<void> {
  for (const context of ['params', 'querystring', 'body'] as const) {
    const value = context === 'params' ? request.params : context === 'querystring' ? request.query : request.body;
    const instancePath = findUnstorableText(value);
    if (instancePath === undefined) continue;
    throw Object.assign(new Error(REASON), {
      statusCode: 400,
      validationContext: context,
      validation: [{ instancePath, keyword: 'unstorableText', message: REASON, params: {} }],
    });
  }
}

type JsonSchema = Record<string, unknown>;

/**
 * Gives every integer and number of a request schema that declares no bound the database's bound, so
 * `paginaAtual=99999999999999999999` or `loc.id: 1e308` is a 400 naming the property, not a failed
 * statement. Schemas are shared objects; bounding them in place also shows the bound in /openapi.json.
 */
export function boundRequestNumbers(route: RouteOptions): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema) return;
  for (const part of [schema.body, schema.querystring, schema.params]) if (part) boundNumbers(part as JsonSchema);
}

function boundNumbers(root: JsonSchema): void {
  const pending: unknown[] = [root];
  const seen = new Set<unknown>();
  while (pending.length) {
    const node = pending.pop();
    if (!node || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const s = node as JsonSchema;
    if (s.type === 'integer' || s.type === 'number') {
      if (s.maximum === undefined && s.exclusiveMaximum === undefined) s.maximum = LIMITS.requestNumberMax;
      if (s.minimum === undefined && s.exclusiveMinimum === undefined) s.minimum = -LIMITS.requestNumberMax;
    }
    for (const child of Object.values(s)) if (child && typeof child === 'object') pending.push(child);
  }
}
