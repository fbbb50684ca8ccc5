/**
 * The ajv behind every request validator (server.ts) and the batch job's item check (pix/lotecobv/items.ts):
 * every error reported, unknown properties refused, never dropped, and each error carrying the value that
 * failed (`verbose`), which the error bodies echo (errors.ts). A body is taken as sent (no coercion, no
 * defaults); query strings and path parameters arrive as text, so they are coerced.
 */
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';

export function requestAjv(part: 'body' | 'text'): Ajv {
  const body = part === 'body';
  return addFormats.default(
    new Ajv({
      allErrors: true,
      removeAdditional: false,
      useDefaults: !body,
      coerceTypes: !body,
      strict: false,
      verbose: true,
    }),
  );
}
