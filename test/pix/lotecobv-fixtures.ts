/** Bodies and calls shared by the batch (lotecobv) tests. */
import assert from 'node:assert/strict';
import type { Party, TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';

export const RANGE = 'inicio=2020-01-01T00:00:00Z&fim=2099-01-01T00:00:00Z';
export const DUE = '2099-12-31';

let serial = 0;
/** A fresh valid txid per call: tests share accounts. */
export const newTxid = (prefix: string) => `${prefix}${String(++serial).padStart(5, '0')}`.padEnd(30, '0');
let batches = 0;
/** A fresh batch id per call. */
export const newBatchId = () => 1000 + ++batches;

/** A due-charge creation request with its txid (Bacen loteCobVBody1 item shape), above the sandbox's 10.00. */
export function item(chave: string, txid: string, extra: Record<string, unknown> = {}) {
  return {
    calendario: { dataDeVencimento: DUE, validadeAposVencimento: 30 },
    txid,
    devedor: {
      logradouro: 'Alameda Souza, Numero 80, Bairro Braz',
      cidade: 'Recife',
      uf: 'PE',
      cep: '70011750',
      cpf: '12345678909',
      nome: 'João Souza',
    },
    valor: { original: '100.00', multa: { modalidade: 2, valorPerc: '2.00' } },
    chave,
    solicitacaoPagador: 'Informar matrícula',
    ...extra,
  };
}

export type Item = ReturnType<typeof item>;

export interface BatchApi {
  call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; text: string; headers: Record<string, unknown> }>;
  put(id: number, cobsv: unknown[], descricao?: string): ReturnType<BatchApi['call']>;
  patch(id: number, body: unknown): ReturnType<BatchApi['call']>;
  get(id: number): ReturnType<BatchApi['call']>;
  /** Waits until no item of the batch is EM_PROCESSAMENTO; returns the batch. */
  settled(id: number): Promise<any>;
  /** PUT then settled; asserts the 202. */
  create(id: number, cobsv: unknown[], descricao?: string): Promise<any>;
  cobv(txid: string): ReturnType<BatchApi['call']>;
}

export function batchApi(party: Party): BatchApi {
  const call: BatchApi['call'] = async (method, path, body) =>
    party.http.request(method, path, { token: await party.token(), body });
  const api: BatchApi = {
    call,
    put: (id, cobsv, descricao = 'Cobranças dos alunos do turno vespertino') =>
      call('PUT', `/v2/lotecobv/${id}`, { descricao, cobsv }),
    patch: (id, body) => call('PATCH', `/v2/lotecobv/${id}`, body),
    get: (id) => call('GET', `/v2/lotecobv/${id}`),
    settled: (id) =>
      waitFor(
        async () => {
          const res = await api.get(id);
          return (
            res.status === 200 &&
            res.body.cobsv.every((c: { status: string }) => c.status !== 'EM_PROCESSAMENTO') &&
            res.body
          );
        },
        `batch ${id} processed`,
        60_000,
        25,
      ),
    async create(id, cobsv, descricao) {
      const res = await api.put(id, cobsv, descricao);
      assert.equal(res.status, 202, res.text);
      return api.settled(id);
    },
    cobv: (txid) => call('GET', `/v2/cobv/${txid}`),
  };
  return api;
}

/** The outbox worker paused: batches stay EM_PROCESSAMENTO until `resume`. */
export async function pauseJobs(svc: TestService): Promise<{ resume(): void }> {
  await svc.service.ctx.outbox.stop();
  return { resume: () => svc.service.ctx.outbox.start() };
}

export const statuses = (batch: { cobsv: { txid: string; status: string }[] }) =>
  Object.fromEntries(batch.cobsv.map((c) => [c.txid, c.status]));
