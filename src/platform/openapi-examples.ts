/**
 * The examples of the API reference. Every operation's request body and 2xx response shows one (openapi.ts
 * attaches them; test/platform/openapi.test.ts requires each and validates it against the route's own
 * schema): built by `exampleOf` from the route's schemas and the shared values of example-values.ts, or, for
 * the common operations below, written out in full.
 *
 * The tests build their requests from the written-out ones (test/helpers/service.ts
 * `cobBody`, test/pix/rec-fixtures.ts `recBody`, ...), and test/platform/openapi.test.ts sends every one as
 * it is, but for the account's own key, and expects it accepted: an example in the reference always works.
 */

import { AMOUNT_PATTERN } from './money.ts';
import { BY_PROPERTY, EXAMPLE, EXAMPLE_KEY, ONE_OF } from './example-values.ts';

const devedor = { cpf: EXAMPLE.cpf, nome: 'Francisco da Silva' };

const cob = {
  calendario: { expiracao: 3600 },
  devedor,
  valor: { original: EXAMPLE.amount },
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
    original: EXAMPLE.amount,
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

type JsonSchema = Record<string, any>;

/** A value for a pattern no property name covers, by the patterns our schemas use. */
const BY_PATTERN: Record<string, string> = {
  '^\\d{11}$': EXAMPLE.cpf,
  '^\\d{14}$': EXAMPLE.cnpj,
  '^(\\d{11}|\\d{14})$': EXAMPLE.cpf,
  '^\\d{10,11}$': '81988887777',
  '^\\d{8}$': EXAMPLE.ispb,
  '^[A-Z]{2}$': 'PE',
  '^(PF|PJ)$': 'PF',
  '^[a-zA-Z0-9]{26,35}$': EXAMPLE.txid,
  '^[a-zA-Z0-9]{32}$': EXAMPLE.txid,
  '^[a-zA-Z0-9]{1,25}$': 'pagamento123',
  '^[0-9A-Z]{8}$': 'A1B2C3D4',
  '^\\d{3,8}$': '12345',
  '^\\d{7}$': '2611606',
  '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$': EXAMPLE.uuid,
  '^[ED]\\d{8}\\d{12}[a-zA-Z0-9]{11}$': EXAMPLE.e2eid,
  '^(cacc|svgs|slry|tran|CACC|SVGS|SLRY|TRAN)$': 'CACC',
};

/**
 * An instance of `schema` built from the schema's own `examples`, `const`, `default` or `enum`, else from the
 * shared values by property name, format or pattern: what the reference shows unless the operation has one of
 * its own. Deterministic, so the document is the same on every node.
 */
export function exampleOf(schema: JsonSchema, property?: string): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return exampleOf(branches.find((b: JsonSchema) => b.type !== 'null') ?? branches[0], property);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: JsonSchema) => exampleOf(part, property)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  const named = property === undefined ? undefined : BY_PROPERTY[property];
  if ((type === 'integer' || type === 'number') && typeof named === 'number') return named;
  switch (type) {
    case 'object':
      return objectExample(schema);
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items ?? {}, property));
    case 'string':
      return stringExample(schema, property);
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    default:
      return property && property in BY_PROPERTY ? BY_PROPERTY[property] : null;
  }
}

function objectExample(schema: JsonSchema): Record<string, unknown> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const names = properties.map(([name]) => name);
  const required = new Set<string>(schema.required ?? []);
  const shown = properties.filter(([name]) => {
    const group = ONE_OF.find((fields) => fields.includes(name));
    return required.has(name) || !group || group.find((field) => names.includes(field)) === name;
  });
  return Object.fromEntries(shown.map(([name, sub]) => [name, exampleOf(sub, name)]));
}

/** The shape a value of each format has, and the shared value shown when the property's name gives none. */
const BY_FORMAT: Record<string, { value: string; shape: RegExp }> = {
  'date-time': { value: EXAMPLE.dateTime, shape: /^\d{4}-\d{2}-\d{2}T/ },
  date: { value: EXAMPLE.date, shape: /^\d{4}-\d{2}-\d{2}$/ },
  uri: { value: EXAMPLE.url, shape: /^https?:\/\// },
  email: { value: EXAMPLE.email, shape: /@/ },
  uuid: { value: EXAMPLE.uuid, shape: /^[0-9a-f]{8}-/ },
};

function stringExample(schema: JsonSchema, property: string | undefined): string {
  const named = property === undefined ? undefined : BY_PROPERTY[property];
  const format = BY_FORMAT[schema.format];
  // A name means different things in different families (a 25-character txid of a static QR code, a date
  // that is a day here and an instant there): the shared value only where the schema's pattern and format fit.
  if (
    typeof named === 'string' &&
    (!schema.pattern || new RegExp(schema.pattern).test(named)) &&
    (!format || format.shape.test(named))
  ) {
    return named;
  }
  if (schema.pattern === AMOUNT_PATTERN) return EXAMPLE.amount;
  if (schema.pattern in BY_PATTERN) return BY_PATTERN[schema.pattern];
  if (format) return format.value;
  const text = property ?? 'exemplo';
  return text.padEnd(schema.minLength ?? 0, '0').slice(0, schema.maxLength ?? text.length);
}
