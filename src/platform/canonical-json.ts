/**
 * JSON with object keys sorted, at every depth: two bodies that differ only in the order of their properties
 * give the same text. Idempotent requests (a repeated idEnvio, a directory requestId) compare bodies so.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
