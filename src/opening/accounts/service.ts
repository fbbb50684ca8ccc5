/**
 * Simplified accounts (docs/simplified-accounts.md): an integrator the operator trusted (it holds
 * `gn.registration.write`) opens an account for its end client, with an application holding the scopes it
 * integrates, then issues that application's certificate and reads its credentials. The account opens at once
 * (pixd has no end-client confirmation by SMS or WhatsApp to wait for) and `conta_aberta` goes to the
 * integrator's account-opening webhooks in the same transaction.
 *
 * The client secret is never stored: the first credentials read draws it, stores its hash and answers it; later
 * reads leave it out. Nothing to encrypt at rest, nothing to leak from a database copy.
 */
import type { Clock } from '../../platform/clock.ts';
import type { Database } from '../../platform/db/database.ts';
import type { ServicePki } from '../../platform/bootstrap.ts';
import type { Environment } from '../../config.ts';
import { ApiError } from '../../platform/errors.ts';
import { randomAlphanumeric } from '../../platform/ids.ts';
import { isValidCpf } from '../../platform/documents.ts';
import { certificateSha256, issueCertificate } from '../../platform/pki.ts';
import { hashSecret } from '../../platform/auth/tokens.ts';
import { isScope } from '../../platform/auth/scopes.ts';
import { AccountInputError, createAccount, newClientSecret } from '../../accounts/service.ts';
import { findAccount, findApplication, replaceApplicationCredential } from '../../accounts/store.ts';
import { enqueueOpeningEvent } from '../events.ts';
import { SIMPLIFIED_ACCOUNT_ID_CHARS, type SimplifiedAccountBody } from './schemas.ts';
import { claimSecretAnswer, findSimplifiedAccount, insertSimplifiedAccount, isDuplicateHolder } from './store.ts';

export interface SimplifiedAccountDeps {
  db: Database;
  pki: ServicePki;
  clock: Clock;
  environment: Environment;
}

/** The integrator: its account, its clock's now, and the scopes its token holds. */
export interface Opener {
  accountId: number;
  now: Date;
  scopes: ReadonlySet<string>;
}

const invalid = (mensagem: string) => new ApiError(400, 'conta_simplificada_invalida', mensagem);

export async function openSimplifiedAccount(deps: SimplifiedAccountDeps, opener: Opener, body: SimplifiedAccountBody) {
  const cliente = body.clienteFinal;
  if (!isValidCpf(cliente.cpf)) throw invalid('clienteFinal.cpf não é um CPF válido.');
  // An integrator hands its client at most what the operator granted the integrator itself.
  const refused = body.escoposIntegrados.filter((s) => !isScope(s) || !opener.scopes.has(s));
  if (refused.length)
    throw new ApiError(400, 'escopo_nao_permitido', `Escopos desconhecidos ou não concedidos: ${refused.join(', ')}.`);
  const id = randomAlphanumeric(SIMPLIFIED_ACCOUNT_ID_CHARS);
  const { endereco } = cliente;
  try {
    await deps.db.atomic(async (tx) => {
      const issued = await createAccount(
        tx,
        deps.pki,
        deps.clock,
        {
          nome: cliente.razaoSocial ?? cliente.nomeCompleto,
          documento: cliente.cnpj ?? cliente.cpf,
          scopes: body.escoposIntegrados,
          logradouro: `${endereco.logradouro}, ${endereco.numero}`,
          cidade: endereco.cidade,
          uf: endereco.estado,
          cep: endereco.cep,
        },
        deps.environment,
      );
      await insertSimplifiedAccount(tx, {
        id,
        opener_account_id: opener.accountId,
        account_id: issued.account.id,
        client_id: issued.clientId,
        cpf: cliente.cpf,
        cnpj: cliente.cnpj ?? null,
        created_at: opener.now,
      });
      await enqueueOpeningEvent(tx, opener.accountId, id, 'conta_aberta', opener.now);
    });
  } catch (error) {
    if (error instanceof AccountInputError) throw invalid(error.message);
    // The unique index, not a prior read, decides: of two concurrent openings for one holder only one commits.
    if (isDuplicateHolder(error))
      throw new ApiError(
        409,
        'conta_simplificada_existente',
        'Esta conta já abriu uma conta simplificada para este CPF ou CNPJ do cliente final.',
      );
    throw error;
  }
  return { contaSimplificada: { identificador: id }, id, status: 'conta_aberta' };
}

async function ownSimplifiedAccount(db: Database, opener: Opener, id: string) {
  const row = await findSimplifiedAccount(db, opener.accountId, id);
  if (!row)
    throw new ApiError(
      404,
      'conta_simplificada_inexistente',
      `Nenhuma conta simplificada ${id} aberta por esta conta.`,
    );
  return row;
}

/** A new client certificate for the account's application; the previous one stops authenticating. */
export async function issueSimplifiedCertificate(deps: SimplifiedAccountDeps, opener: Opener, id: string) {
  const row = await ownSimplifiedAccount(deps.db, opener, id);
  const identity = issueCertificate(deps.pki.ca, { commonName: row.client_id, usage: 'client', now: deps.clock.now() });
  await replaceApplicationCredential(deps.db, row.client_id, {
    certificateSha256: certificateSha256(identity.certPem),
  });
  return { certificado: identity.certPem + identity.keyPem };
}

export async function simplifiedCredentials(deps: SimplifiedAccountDeps, opener: Opener, id: string) {
  const row = await ownSimplifiedAccount(deps.db, opener, id);
  const clientSecret = await deps.db.atomic(async (tx) => {
    if (!(await claimSecretAnswer(tx, id, opener.now))) return undefined;
    const secret = newClientSecret();
    await replaceApplicationCredential(tx, row.client_id, { secretHash: hashSecret(secret) });
    return secret;
  });
  const [application, account] = await Promise.all([
    findApplication(deps.db, row.client_id),
    findAccount(deps.db, row.account_id),
  ]);
  return {
    clientId: row.client_id,
    ...(clientSecret && { clientSecret }),
    conta: { numero: account!.conta, payeeCode: account!.payee_code },
    escopos: application!.scopes,
    ativo: application!.active,
  };
}
