import { Type } from '@sinclair/typebox';

const Bucket = Type.Object({
  tiposChave: Type.Array(Type.String(), { description: 'The key families whose lookups use this bucket.' }),
  capacidade: Type.Integer({ minimum: 0, description: '100 for a person (CPF), 1,000 for a company (CNPJ).' }),
  fichasDisponiveis: Type.Integer({ minimum: 0 }),
  taxaDeReposicaoFichas: Type.Integer({ minimum: 0 }),
  periodoReposicaoEmSegundos: Type.Integer({ minimum: 1 }),
});

export const BucketsView = Type.Object({ baldeA: Bucket, baldeB: Bucket });
