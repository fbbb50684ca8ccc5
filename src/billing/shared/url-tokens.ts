/** The unguessable tokens billing puts in URLs: 18 random bytes (144 bits) each. */
import { randomBytes } from 'node:crypto';

const TOKEN_BYTES = 18;

/** A charge's notification token (GET /v1/notification/:token): hex. */
export const newNotificationToken = (): string => randomBytes(TOKEN_BYTES).toString('hex');

/** The token of a page a payer opens (checkout, payment link, boleto PDF): URL-safe base64. */
export const newPageToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');
