/** Request bodies shared by the automatic Pix tests. */
import { REQUEST_EXAMPLES } from '../../src/platform/openapi-examples.ts';

/** A recurrence body as the standard's example (the API reference's, src/platform/openapi-examples.ts): a monthly fixed amount. */
export function recBody(extra: Record<string, unknown> = {}, devedor: Record<string, string> = {}) {
  const example = structuredClone(REQUEST_EXAMPLES['POST /v2/rec']);
  return {
    ...example,
    vinculo: { ...example.vinculo, devedor: { ...example.vinculo.devedor, ...devedor } },
    ...extra,
  };
}
