/**
 * The answer pixd writes most: a pacs.002 without a reason (ACSP, with its settlement instant, to each credited
 * pacs.008). Building one and validating it again against the XSD cost as much as reading the pacs.008 it answers
 * (docs/performance.md, "Session 13"), and the XML differs from one answer to the next only in five values. So
 * each shape of such a report (which message it answers, its status, whether it names the settlement instant) is
 * built once by messages.ts's builder with sentinel values — and validated there, as everything it writes — and
 * kept as a template; a report whose values each match their type in xsd/pacs.002.spi.1.14.xsd (the patterns
 * read from that file, and instants that `toISOString` writes as an xs:dateTime) is that validated document with
 * other valid leaves, so it validates too, and is the very text the builder writes (no value needs escaping).
 * Anything else — a reason, a value off its pattern — is answered undefined, and built and validated as before.
 */
import fs from 'node:fs';

/** The fields of a status report the template writes (messages.ts's StatusReport). */
interface ReportValues {
  msgId: string;
  createdAt: Date;
  originalMsgId: string;
  originalMsgName: string;
  originalId: string;
  status: string;
  reason?: unknown;
  settledAt?: Date;
}

const schema = fs.readFileSync(new URL('./xsd/pacs.002.spi.1.14.xsd', import.meta.url), 'utf8');

/** A simple type's pattern in the schema, as an anchored RegExp (an XSD pattern matches the whole value). */
function patternOf(type: string): RegExp {
  const found = new RegExp(`<xs:simpleType name="${type}">.*?<xs:pattern value="([^"]+)"/>`, 's').exec(schema);
  if (!found) throw new Error(`pacs.002's schema has no pattern for ${type}`);
  return new RegExp(`^(?:${found[1]})$`);
}

const MESSAGE_ID = patternOf('MessageId');
const END_TO_END_OR_RETURN_ID = patternOf('EndToEndOrReturnId');

/** toISOString writes YYYY-MM-DDTHH:mm:ss.sssZ, a valid xs:dateTime, for the years 1 to 9999. */
function writesAsUtcDateTime(at: Date): boolean {
  const year = at.getUTCFullYear();
  return year >= 1 && year <= 9999;
}

// Sentinels: valid values that occur nowhere else in a report, so the built text splits on them.
const SENTINELS = {
  msgId: 'M11111111SENTINELMSGIDSENTINELMS',
  originalMsgId: 'M22222222SENTINELORIGINALMSGIDXY',
  originalId: 'E33333333200101010000SENTINELEEX',
  createdAt: new Date('2001-01-01T01:01:01.001Z'),
  settledAt: new Date('2002-02-02T02:02:02.002Z'),
};
type Field = keyof typeof SENTINELS;
const FIELD_OF = new Map<string, Field>(
  (Object.keys(SENTINELS) as Field[]).map((field) => {
    const value = SENTINELS[field];
    return [value instanceof Date ? value.toISOString() : value, field];
  }),
);
const SPLIT = new RegExp(`(${[...FIELD_OF.keys()].map((text) => text.replaceAll('.', '\\.')).join('|')})`);

/** Static text and fields, alternating: parts[0], field 1, parts[2], field 3, … */
type Template = (string | Field)[];

const templates = new Map<string, Template>();

function templateOf<T extends ReportValues>(m: T, build: (m: T) => string): Template {
  const shape = `${m.originalMsgName} ${m.status} ${m.settledAt !== undefined}`;
  let template = templates.get(shape);
  if (!template) {
    const sample = build({ ...m, ...SENTINELS, ...(m.settledAt === undefined && { settledAt: undefined }) });
    template = sample.split(SPLIT).map((part, n) => (n % 2 === 1 ? FIELD_OF.get(part)! : part));
    templates.set(shape, template);
  }
  return template;
}

/** The report written from its validated template, or undefined: build it (and validate it) the usual way. */
export function statusReportFromTemplate<T extends ReportValues>(m: T, build: (m: T) => string): string | undefined {
  if (m.reason !== undefined) return undefined;
  if (!MESSAGE_ID.test(m.msgId) || !MESSAGE_ID.test(m.originalMsgId)) return undefined;
  if (!END_TO_END_OR_RETURN_ID.test(m.originalId)) return undefined;
  if (!writesAsUtcDateTime(m.createdAt) || (m.settledAt && !writesAsUtcDateTime(m.settledAt))) return undefined;
  const template = templateOf(m, build);
  let xml = '';
  for (let n = 0; n < template.length; n++) {
    const part = template[n];
    if (n % 2 === 0) xml += part;
    else {
      const value = m[part as Field];
      xml += value instanceof Date ? value.toISOString() : value;
    }
  }
  return xml;
}
