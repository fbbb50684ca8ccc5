/**
 * The schema compilers server.ts gives Fastify, and the ajv behind every request validator and the batch
 * job's item check (pix/lotecobv/items.ts): every error reported, unknown properties refused, never dropped,
 * and each error carrying the value that failed (`verbose`), which the error bodies echo (errors.ts). A body
 * is taken as sent (no coercion, no defaults); query strings and path parameters arrive as text, so they are
 * coerced.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import addFormats from 'ajv-formats';

export function requestAjv(part: 'body' | 'text'): Ajv {
  const body = part === 'body';
  return addFormats.default(
    new Ajv({
      allErrors: true,
      removeAdditional: false,
      useDefaults: !body,
      coerceTypes: !body,
      strict: false,
      verbose: true,
    }),
  );
}

/**
 * Bodies are validated strictly (no coercion, every error reported, unknown properties refused, never
 * silently dropped). Query strings and path parameters arrive as text, so they are coerced.
 */
export function validatorCompiler() {
  const strict = requestAjv('body');
  const coercing = requestAjv('text');
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    compiledOnFirstUse(httpPart === 'body' ? strict : coercing, schema);
}

/**
 * A route's validator, compiled when its first request arrives instead of at start: compiling every route's
 * schemas was a quarter of a restart's CPU, for routes a node may never serve. Fastify reads `schemaEnv` to
 * pass the parent object (so coercion can replace a root value) and `errors` after a failure.
 */
function compiledOnFirstUse(ajv: Ajv, schema: object) {
  let compiled: ValidateFunction | undefined;
  const compile = () => (compiled ??= ajv.compile(schema));
  const validate = (data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    const run = compile();
    const valid = run(data, context);
    validate.errors = run.errors;
    return valid;
  };
  validate.errors = undefined as ValidateFunction['errors'];
  Object.defineProperty(validate, 'schemaEnv', { get: () => compile().schemaEnv });
  return validate;
}

/**
 * Fastify's response serializers (fast-json-stringify), each compiled when its route first answers with that
 * status instead of when the route is declared: compiling every route's response schemas was the largest
 * part of building the app (a fifth of a `pixd start` child's CPU before its first request), for routes a
 * node may never serve. A schema fast-json-stringify cannot compile fails that route's first answer.
 */
export function lazySerializers(...factoryArgs: Parameters<ReturnType<typeof SerializerSelector>>) {
  const compile = SerializerSelector()(...factoryArgs);
  return (route: Parameters<typeof compile>[0]) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= compile(route))(data);
  };
}
