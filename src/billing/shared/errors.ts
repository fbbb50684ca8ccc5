/** Billing errors: `{code, error, error_description}` (the family's format), thrown as ApiError. */
import { ApiError, type GroupErrorName, type StatusOf } from '../../platform/errors.ts';

export const billingError = <N extends GroupErrorName<'billing'>>(status: StatusOf<N>, error: N, description: string) =>
  new ApiError(status, error, description);
export const chargeNotFound = () => billingError(404, 'charge_not_found', 'Cobrança não encontrada para esta conta.');
export const carnetNotFound = () => billingError(404, 'carnet_not_found', 'Carnê não encontrado para esta conta.');
/** Payment-token library codes (payment-token-efi): an unsupported brand is 3500056. */
export const INVALID_BRAND_CODE = 3500056;
