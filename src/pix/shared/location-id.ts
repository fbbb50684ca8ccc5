/** The numeric id of a location (/v2/loc and /v2/locrec), shared by both resources. */

/** Path ids are text (Bacen); anything but a positive bigint is simply absent (also /v2/locrec ids). */
export function parseId(id: string): number | undefined {
  if (!/^\d{1,15}$/.test(id)) return undefined;
  const value = Number(id);
  return value >= 1 ? value : undefined;
}
