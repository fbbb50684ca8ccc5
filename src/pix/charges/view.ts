/** How immediate and due charges are shown: the stored request fields plus what the service derives. */
import { dynamicBrCode } from '../../platform/brcode.ts';
import { omit } from '../../platform/objects.ts';
import { locationAddress, type TipoCob } from '../loc/store.ts';
import type { StatusCobranca } from '../shared/schemas.ts';
import type { ChargeRow } from './store.ts';

type ViewSource<B> = Pick<
  ChargeRow<B>,
  | 'kind'
  | 'txid'
  | 'revisao'
  | 'status'
  | 'created_at'
  | 'location_id'
  | 'body'
  | 'loc_token'
  | 'loc_created_at'
  | 'account_nome'
  | 'account_cidade'
>;

/** The stored body with `calendario.criacao` added, the identity and state, and the location if any. */
export type ChargeView<B extends { calendario: object }> = Omit<B, 'calendario'> & {
  calendario: { criacao: string } & B['calendario'];
  txid: string;
  revisao: number;
  status: StatusCobranca;
  loc?: { id: number; location: string; tipoCob: TipoCob; criacao: string };
  location?: string;
  pixCopiaECola?: string;
};

/** The copy-and-paste code is derived from the location, never stored, so it follows the location. */
export function chargeView<B extends { calendario: object }>(charge: ViewSource<B>, publicUrl: string): ChargeView<B> {
  const view = omit(charge.body, 'calendario') as unknown as ChargeView<B>;
  view.calendario = { criacao: charge.created_at.toISOString(), ...charge.body.calendario };
  view.txid = charge.txid;
  view.revisao = charge.revisao;
  view.status = charge.status as StatusCobranca;
  if (charge.location_id !== null && charge.loc_token && charge.loc_created_at) {
    const location = locationAddress(publicUrl, charge.loc_token, charge.kind);
    view.loc = { id: charge.location_id, location, tipoCob: charge.kind, criacao: charge.loc_created_at.toISOString() };
    view.location = location;
    view.pixCopiaECola = dynamicBrCode({
      locationUrl: location,
      merchantName: charge.account_nome,
      merchantCity: charge.account_cidade,
    });
  }
  return view;
}
