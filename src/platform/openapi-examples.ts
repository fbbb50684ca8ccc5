/**
 * Realistic requests of the common operations, shown in the API reference (openapi.ts adds each to its
 * operation's body). The tests build their requests from these same objects (test/helpers/service.ts
 * `cobBody`, test/pix/rec-fixtures.ts `recBody`, ...), and test/platform/openapi.test.ts sends every one as
 * it is, but for the account's own key, and expects it accepted: an example in the reference always works.
 */

/** Stands for the caller's own Pix key in the examples (a random key in the shape pixd issues). */
export const EXAMPLE_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

const devedor = { cpf: '12345678909', nome: 'Francisco da Silva' };

const cob = {
  calendario: { expiracao: 3600 },
  devedor,
  valor: { original: '123.45' },
  chave: EXAMPLE_KEY,
  solicitacaoPagador: 'Serviço realizado.',
};

const cobv = {
  calendario: { dataDeVencimento: '2099-12-31', validadeAposVencimento: 30 },
  devedor: {
    logradouro: 'Alameda Souza, Numero 80, Bairro Braz',
    cidade: 'Recife',
    uf: 'PE',
    cep: '70011750',
    ...devedor,
  },
  valor: {
    original: '123.45',
    multa: { modalidade: 2, valorPerc: '15.00' },
    juros: { modalidade: 2, valorPerc: '2.00' },
    desconto: { modalidade: 1, descontoDataFixa: [{ data: '2099-11-30', valorPerc: '30.00' }] },
  },
  chave: EXAMPLE_KEY,
  solicitacaoPagador: 'Cobrança dos serviços prestados.',
};

const rec = {
  vinculo: {
    objeto: 'Serviço de Streamming de Música.',
    contrato: '63100862',
    devedor: { cpf: '45164632481', nome: 'Fulano de Tal' },
  },
  calendario: { dataInicial: '2099-01-10', periodicidade: 'MENSAL' },
  valor: { valorRec: '35.85' },
  politicaRetentativa: 'NAO_PERMITE',
};

/** By `METHOD route` as the server declares it. */
export const REQUEST_EXAMPLES = {
  'POST /v2/cob': cob,
  'PUT /v2/cob/:txid': cob,
  'PUT /v2/cobv/:txid': cobv,
  'POST /v2/loc': { tipoCob: 'cob' },
  'POST /v2/rec': rec,
  'POST /v1/charge': { items: [{ name: 'Meu Produto', value: 5990, amount: 2 }] },
} as const;

export type ExampleOperation = keyof typeof REQUEST_EXAMPLES;
