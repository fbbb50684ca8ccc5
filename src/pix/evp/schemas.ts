/** Random (evp) keys (Efí /v2/gn/evp). */
import { Type } from '@sinclair/typebox';
import { Chave } from '../shared/schemas.ts';

export const KeyCreated = Type.Object({
  chave: Type.String({ format: 'uuid', description: 'The new random key (lowercase UUID v4).' }),
});
export const KeyList = Type.Object({
  chaves: Type.Array(Type.String(), { description: 'Active random keys of the account, oldest first.' }),
});
export const KeyParams = Type.Object({ chave: Chave });
