/**
 * Validation of SPI messages against the schemas in ./xsd (pixd's transcription of the catalog's, README.md
 * there). libxml2 compiled to WebAssembly: a real XSD validator with no native build or download. Each schema is
 * compiled once per process; a message is validated before it is read (inbound) and after it is built
 * (outbound), so nothing that does not validate crosses the boundary either way.
 */
import fs from 'node:fs';
import { XmlDocument, XmlParseError, XmlValidateError, XsdValidator } from 'libxml2-wasm';
import { LIMITS } from '../platform/limits.ts';
import type { XmlTree } from './plain-xml.ts';
import { compilePlainValidator, type PlainValidator } from './xsd-plain.ts';

/** The catalog's message names, and the namespace of each one's Document. */
export const SPI_SCHEMAS = {
  'pacs.008.spi.1.13': 'https://www.bcb.gov.br/pi/pacs.008/1.13',
  'pacs.002.spi.1.14': 'https://www.bcb.gov.br/pi/pacs.002/1.14',
  'pacs.004.spi.1.5': 'https://www.bcb.gov.br/pi/pacs.004/1.5',
  'admi.002.spi.1.3': 'https://www.bcb.gov.br/pi/admi.002/1.3',
} as const;

export type SpiMessageName = keyof typeof SPI_SCHEMAS;

/** Why a message was refused: admi.002's reason (ISO RejectReason2: PARS unreadable, MSGT unknown, IMSG invalid). */
export class SpiMessageInvalid extends Error {
  constructor(
    readonly reason: 'PARS' | 'MSGT' | 'IMSG',
    message: string,
    /** The refused message's MsgId when it could be read, for admi.002's reference. */
    readonly msgId?: string,
  ) {
    super(message);
  }
}

const validators = new Map<SpiMessageName, XsdValidator>();

const schemaFile = (name: SpiMessageName) => fs.readFileSync(new URL(`./xsd/${name}.xsd`, import.meta.url));

function validatorFor(name: SpiMessageName): XsdValidator {
  let validator = validators.get(name);
  if (!validator) {
    const schema = XmlDocument.fromBuffer(schemaFile(name));
    try {
      validator = XsdValidator.fromDoc(schema);
    } finally {
      schema.dispose();
    }
    validators.set(name, validator);
  }
  return validator;
}

const NAME_BY_NAMESPACE = new Map<string, SpiMessageName>(
  Object.entries(SPI_SCHEMAS).map(([name, ns]) => [ns, name as SpiMessageName]),
);

/** Each schema's validator of the plain form (xsd-plain.ts), compiled from the same file on first use. */
const plainValidators = new Map<SpiMessageName, PlainValidator>();

function plainValidatorFor(name: SpiMessageName): PlainValidator {
  let validator = plainValidators.get(name);
  if (!validator) {
    validator = compilePlainValidator(schemaFile(name).toString('utf8'));
    if (validator.namespace !== SPI_SCHEMAS[name]) throw new Error(`${name}.xsd: namespace ${validator.namespace}`);
    plainValidators.set(name, validator);
  }
  return validator;
}

const PLAIN_ROOT = /^(?:<\?xml version="1\.0" encoding="UTF-8"\?>)?\s*<Document xmlns="([^"]+)">/;

/** Which message this is (by its Document's namespace), validated; SpiMessageInvalid otherwise. */
export function validateSpiMessage(xml: string): SpiMessageName {
  return validateAndRead(xml).name;
}

/**
 * validateSpiMessage, and the message's tree when the validator compiled from its schema (xsd-plain.ts) read it
 * on the way: a message in plain form is accepted there; anything it does not accept, valid or not, is libxml2's
 * to judge (no tree then: messages.ts reads it), so every refusal is libxml2's.
 */
export function validateAndRead(xml: string): { name: SpiMessageName; tree?: Record<string, XmlTree> } {
  if (Buffer.byteLength(xml) > LIMITS.spiMessageMaxBytes)
    throw new SpiMessageInvalid('IMSG', `Mensagem acima de ${LIMITS.spiMessageMaxBytes} bytes.`);
  const plainName = NAME_BY_NAMESPACE.get(PLAIN_ROOT.exec(xml)?.[1] ?? '');
  const tree = plainName && plainValidatorFor(plainName).read(xml);
  if (tree) return { name: plainName, tree };
  return { name: validateWithLibxml2(xml) };
}

function validateWithLibxml2(xml: string): SpiMessageName {
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml);
  } catch (error) {
    if (error instanceof XmlParseError) throw new SpiMessageInvalid('PARS', `XML ilegível: ${error.message.trim()}`);
    throw error;
  }
  try {
    const name = doc.root.name === 'Document' ? NAME_BY_NAMESPACE.get(doc.root.namespaceUri) : undefined;
    if (!name)
      throw new SpiMessageInvalid('MSGT', `Mensagem desconhecida: ${doc.root.name} em "${doc.root.namespaceUri}".`);
    try {
      validatorFor(name).validate(doc);
    } catch (error) {
      if (error instanceof XmlValidateError)
        throw new SpiMessageInvalid('IMSG', `${name} não valida no XSD: ${error.message.trim()}`);
      throw error;
    }
    return name;
  } finally {
    doc.dispose();
  }
}
