/**
 * A validator of SPI messages in plain form compiled from the same XSD files libxml2 reads (xsd.ts), so that the
 * common message — a pacs.008 as gateways and pixd write it — is validated without libxml2, which had become the
 * largest part of an inbound pacs.008's CPU (docs/performance.md, "Session 13").
 *
 * It only ever **accepts**: `read` answers the message's tree (the one plain-xml.ts reads, built on the same pass)
 * when the message is certainly valid, undefined when it cannot tell, and xsd.ts then asks libxml2, whose
 * verdict (and error text, and admi.002 reason) is final. So it need not
 * know all of XML or XSD, only be stricter than both on what it accepts:
 *
 *   - the form: an optional `<?xml version="1.0" encoding="UTF-8"?>`, `<Document xmlns="…">` with the schema's
 *     namespace, every other tag `<Name>` or `</Name>` with no prefix, space or attribute except a declared
 *     attribute written ` name="value"`; between elements only spaces, tabs and newlines; in a value no `&`,
 *     no carriage return (line ends are normalised), no `]]>`, only characters XML allows outside surrogates;
 *   - the structure: each complex type's sequence (and choice of elements) with its minOccurs/maxOccurs, matched
 *     greedily, which the schema's unique particle attribution makes exact; end tags matching start tags;
 *   - the values: xs:string's enumeration, pattern (anchored; the XSD patterns used are of a subset read alike
 *     by JavaScript, whose `.` also excludes U+2028/9), minLength/maxLength on the raw text; xs:decimal as plain
 *     digits with its pattern, minInclusive, totalDigits and fractionDigits counted on the raw digits;
 *     xs:dateTime as `YYYY-MM-DDThh:mm:ss[.fff]Z` of a real calendar day, year 0001–9999.
 *
 * A schema that uses anything else (another facet, xs:all, xs:any, a reference, a derived simple type…) is not
 * compiled: `compilePlainValidator` throws and xsd.ts leaves that message to libxml2 alone. Tested against
 * libxml2 on mutations of every kind of message (test/spi/fast-paths.test.ts).
 */
import { XMLParser } from 'fast-xml-parser';
import type { XmlTree } from './plain-xml.ts';

type Check = (value: string) => boolean;

interface ElementDecl {
  kind: 'element';
  name: string;
  /** `<name` and `</name>`, made once: the reader compares, it does not cut names out of the message. */
  startTag: string;
  endTag: string;
  min: number;
  max: number;
  type: () => TypeModel;
}

interface ChoiceDecl {
  kind: 'choice';
  min: number;
  options: ElementDecl[];
}

type TypeModel =
  | { kind: 'simple'; check: Check; attributes: { name: string; check: Check }[] }
  | { kind: 'complex'; particles: (ElementDecl | ChoiceDecl)[] };

// fast-xml-parser's ordered form: [{ 'xs:tag': children, ':@': { name: value } }, …]
type XsdNode = Record<string, XsdNode[]> & { ':@'?: Record<string, string> };

const xsdParser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '' });

class Unsupported extends Error {}

const tagOf = (node: XsdNode) => Object.keys(node).find((key) => key !== ':@')!;
const attrs = (node: XsdNode) => node[':@'] ?? {};
const children = (node: XsdNode) => node[tagOf(node)].filter((child) => tagOf(child) !== '#text');

function only(nodes: XsdNode[], tag: string): XsdNode {
  if (nodes.length !== 1 || tagOf(nodes[0]) !== tag) throw new Unsupported(`expected one ${tag}`);
  return nodes[0];
}

/** Characters a value may hold here: XML's allowed characters, without `&`, CR (normalised) or surrogates. */
const SAFE_TEXT = /^[\t\n\x20-\x25\x27-\uD7FF\uE000-\uFFFD]*$/;
const SAFE_ATTRIBUTE = /^[\x20-\x21\x23-\x25\x27-\x3B\x3D-\uD7FF\uE000-\uFFFD]*$/;
/** XSD patterns whose reading is the same in JavaScript: literals, classes, quantifiers, groups, `|`, `\.`. */
const PORTABLE_PATTERN = /^(?:[A-Za-z0-9 .|(){},[\]\-+*?]|\\\.)*$/;

function patternCheck(pattern: string): Check {
  // Not `-[` (XSD's class subtraction) nor `(?` (JavaScript's own groups).
  if (!PORTABLE_PATTERN.test(pattern) || pattern.includes('-[') || pattern.includes('(?'))
    throw new Unsupported(`pattern ${pattern}`);
  const regex = new RegExp(`^(?:${pattern})$`);
  return (value) => regex.test(value);
}

const DATE_TIME = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,3})?Z$/;

function isDateTime(value: string): boolean {
  const parts = DATE_TIME.exec(value);
  if (!parts) return false;
  const [year, month, day, hour, minute, second] = parts.slice(1).map(Number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return year >= 1 && days !== undefined && day >= 1 && day <= days && hour < 24 && minute < 60 && second < 60;
}

const DECIMAL = /^([0-9]+)(?:\.([0-9]+))?$/;

/** a ≥ b for plain decimals (DECIMAL's form). */
function decimalAtLeast(a: string, b: string): boolean {
  const [, ai, af = ''] = DECIMAL.exec(a)!;
  const [, bi, bf = ''] = DECIMAL.exec(b)!;
  const scale = Math.max(af.length, bf.length);
  return BigInt(ai + af.padEnd(scale, '0')) >= BigInt(bi + bf.padEnd(scale, '0'));
}

/** A restriction of xs:string, xs:decimal or xs:dateTime, every facet of it checked. */
function restrictionCheck(restriction: XsdNode): Check {
  const { base, ...others } = attrs(restriction);
  if (Object.keys(others).length) throw new Unsupported('restriction attributes');
  const checks: Check[] = [];
  const enumeration: string[] = [];
  let patterns = 0;
  for (const facet of children(restriction)) {
    const tag = tagOf(facet);
    const { value, ...rest } = attrs(facet);
    if (Object.keys(rest).length) throw new Unsupported(`${tag} attributes`);
    const number = Number(value);
    if (tag === 'xs:enumeration' && base === 'xs:string') enumeration.push(value);
    else if (tag === 'xs:pattern' && patterns++ === 0) checks.push(patternCheck(value));
    else if (tag === 'xs:minLength' && base === 'xs:string') checks.push((v) => v.length >= number);
    else if (tag === 'xs:maxLength' && base === 'xs:string') checks.push((v) => v.length <= number);
    else if (tag === 'xs:minInclusive' && base === 'xs:decimal' && DECIMAL.test(value))
      checks.push((v) => decimalAtLeast(v, value));
    else if (tag === 'xs:totalDigits' && base === 'xs:decimal') checks.push((v) => v.replace('.', '').length <= number);
    else if (tag === 'xs:fractionDigits' && base === 'xs:decimal')
      checks.push((v) => (DECIMAL.exec(v)![2] ?? '').length <= number);
    else throw new Unsupported(`${tag} on ${base}`);
  }
  if (enumeration.length) checks.push((v) => enumeration.includes(v));
  if (base === 'xs:decimal') checks.unshift((v) => DECIMAL.test(v));
  else if (base === 'xs:dateTime') checks.unshift(isDateTime);
  else if (base !== 'xs:string') throw new Unsupported(`base ${base}`);
  return (value) => SAFE_TEXT.test(value) && !value.includes(']]>') && checks.every((check) => check(value));
}

export interface PlainValidator {
  /** The schema's target namespace: the `xmlns` of the Documents it accepts. */
  namespace: string;
  /**
   * The message's tree (`{ Document: … }`, as plain-xml.ts and fast-xml-parser read it) when it is valid
   * against the schema; undefined: not in plain form, or invalid — ask libxml2.
   */
  read(xml: string): Record<string, XmlTree> | undefined;
}

/** Compiles an XSD of the subset above; throws when it uses anything else. */
export function compilePlainValidator(xsd: string): PlainValidator {
  const schema = only(
    xsdParser.parse(xsd).filter((node: XsdNode) => tagOf(node) !== '?xml'),
    'xs:schema',
  );
  const { targetNamespace, elementFormDefault, attributeFormDefault } = attrs(schema);
  if (!targetNamespace || elementFormDefault !== 'qualified' || attributeFormDefault === 'qualified')
    throw new Unsupported('the namespaces of elements and attributes');
  const named = new Map<string, XsdNode>();
  let document: XsdNode | undefined;
  for (const node of children(schema)) {
    const { name } = attrs(node);
    if (tagOf(node) === 'xs:element' && name === 'Document') document = node;
    else if (tagOf(node) === 'xs:complexType' || tagOf(node) === 'xs:simpleType') named.set(name, node);
    else throw new Unsupported(tagOf(node));
  }
  const compiled = new Map<string, TypeModel>();
  const typeNamed = (name: string): TypeModel => {
    let model = compiled.get(name);
    if (!model) {
      const node = named.get(name);
      if (!node) throw new Unsupported(`type ${name}`);
      compiled.set(name, (model = typeOf(node)));
    }
    return model;
  };
  const simpleCheckOf = (name: string): Check => {
    const model = typeNamed(name);
    if (model.kind !== 'simple' || model.attributes.length) throw new Unsupported(`${name} is not simple`);
    return model.check;
  };

  function typeOf(node: XsdNode): TypeModel {
    const tag = tagOf(node);
    if (Object.keys(attrs(node)).some((a) => a !== 'name')) throw new Unsupported(`${tag} attributes`);
    const [body, ...more] = children(node);
    if (!body || more.length) throw new Unsupported(`${tag} content`);
    if (tag === 'xs:simpleType')
      return { kind: 'simple', check: restrictionCheck(only([body], 'xs:restriction')), attributes: [] };
    const bodyAttributes = Object.keys(attrs(body));
    if (tagOf(body) === 'xs:simpleContent' && !bodyAttributes.length) {
      const extension = only(children(body), 'xs:extension');
      if (Object.keys(attrs(extension)).some((a) => a !== 'base')) throw new Unsupported('extension attributes');
      const attributes = children(extension).map((attribute) => {
        const { name, type, use, ...rest } = attrs(only([attribute], 'xs:attribute'));
        if (use !== 'required' || Object.keys(rest).length) throw new Unsupported('optional attribute');
        return { name, check: simpleCheckOf(type) };
      });
      return { kind: 'simple', check: simpleCheckOf(attrs(extension).base), attributes };
    }
    if (tagOf(body) === 'xs:sequence' && !bodyAttributes.length)
      return { kind: 'complex', particles: children(body).map(particleOf) };
    if (tagOf(body) === 'xs:choice') return { kind: 'complex', particles: [particleOf(body)] };
    throw new Unsupported(tagOf(body));
  }

  function particleOf(node: XsdNode): ElementDecl | ChoiceDecl {
    const { minOccurs = '1', maxOccurs = '1', name, type, ...rest } = attrs(node);
    if (Object.keys(rest).length || !/^[0-9]+$/.test(minOccurs) || !/^[0-9]+$/.test(maxOccurs))
      throw new Unsupported(`particle ${JSON.stringify(attrs(node))}`);
    if (tagOf(node) === 'xs:choice') {
      const options = children(node).map(particleOf);
      if (maxOccurs !== '1' || options.some((o) => o.kind !== 'element' || o.min !== 1 || o.max !== 1))
        throw new Unsupported('choice');
      return { kind: 'choice', min: Number(minOccurs), options: options as ElementDecl[] };
    }
    if (tagOf(node) !== 'xs:element' || !name) throw new Unsupported(tagOf(node));
    let resolve: () => TypeModel;
    if (type && !children(node).length) resolve = () => typeNamed(type);
    else {
      const model = typeOf(only(children(node), 'xs:complexType'));
      resolve = () => model;
    }
    return {
      kind: 'element',
      name,
      startTag: `<${name}`,
      endTag: `</${name}>`,
      min: Number(minOccurs),
      max: Number(maxOccurs),
      type: resolve,
    };
  }

  if (!document) throw new Unsupported('no Document');
  const root = particleOf(document) as ElementDecl;
  // Every type compiled now: an unsupported construct is found at start, not on some message.
  const visit = (model: TypeModel, seen: Set<TypeModel>) => {
    if (seen.has(model) || model.kind === 'simple') return;
    seen.add(model);
    for (const p of model.particles) for (const e of p.kind === 'choice' ? p.options : [p]) visit(e.type(), seen);
  };
  visit(root.type(), new Set());
  return { namespace: targetNamespace, read: (xml) => new PlainReader(xml, targetNamespace).document(root) };
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** One pass over a message, strict: any doubt is an undefined. */
class PlainReader {
  private at = 0;

  constructor(
    private readonly xml: string,
    private readonly namespace: string,
  ) {}

  document(root: ElementDecl): Record<string, XmlTree> | undefined {
    if (this.xml.startsWith(DECLARATION)) this.at = DECLARATION.length;
    this.skipSpace();
    const start = `<${root.name} xmlns="${this.namespace}">`;
    if (!this.xml.startsWith(start, this.at)) return undefined;
    this.at += start.length;
    const tree = this.content(root, undefined);
    this.skipSpace();
    return tree !== undefined && this.at === this.xml.length ? { [root.name]: tree } : undefined;
  }

  private skipSpace(): void {
    for (let code = this.xml.charCodeAt(this.at); code === 32 || code === 9 || code === 10; )
      code = this.xml.charCodeAt(++this.at);
  }

  /** Whether the start tag at the cursor is the element's (its name followed by `>` or a space). */
  private startsElement(decl: ElementDecl): boolean {
    if (!this.xml.startsWith(decl.startTag, this.at)) return false;
    const next = this.xml.charCodeAt(this.at + decl.startTag.length);
    return next === 62 || next === 32;
  }

  /** The element at the cursor (its name already matched) added to `parent` as plain-xml.ts would; false: refused. */
  private element(decl: ElementDecl, parent: Record<string, XmlTree>): boolean {
    this.at += decl.startTag.length;
    const model = decl.type();
    let attributes: Record<string, string> | undefined;
    for (const attribute of model.kind === 'simple' ? model.attributes : []) {
      const prefix = ` ${attribute.name}="`;
      if (!this.xml.startsWith(prefix, this.at)) return false;
      const close = this.xml.indexOf('"', this.at + prefix.length);
      const value = this.xml.slice(this.at + prefix.length, close);
      if (close < 0 || !SAFE_ATTRIBUTE.test(value) || !attribute.check(value)) return false;
      (attributes ??= {})[`@${attribute.name}`] = value;
      this.at = close + 1;
    }
    if (this.xml.charCodeAt(this.at++) !== 62) return false;
    const value = this.content(decl, attributes);
    if (value === undefined) return false;
    const earlier = parent[decl.name];
    if (earlier === undefined) parent[decl.name] = value;
    else if (Array.isArray(earlier)) earlier.push(value);
    else parent[decl.name] = [earlier, value];
    return true;
  }

  /**
   * The element's content after its start tag, through its end tag, as fast-xml-parser reads it (plain-xml.ts):
   * its text trimmed, or an object of its attributes (`@name`, and its text as `#text`) or of its children.
   */
  private content(decl: ElementDecl, attributes: Record<string, string> | undefined): XmlTree | undefined {
    const model = decl.type();
    let value: XmlTree;
    if (model.kind === 'simple') {
      const end = this.xml.indexOf('<', this.at);
      const text = end < 0 ? '' : this.xml.slice(this.at, end);
      if (end < 0 || !model.check(text)) return undefined;
      this.at = end;
      value = text.trim();
      if (attributes) value = value === '' ? attributes : { ...attributes, '#text': value };
    } else {
      const children: Record<string, XmlTree> = {};
      for (const particle of model.particles) {
        this.skipSpace();
        if (particle.kind === 'choice') {
          const option = particle.options.find((o) => this.startsElement(o));
          if (option ? !this.element(option, children) : particle.min > 0) return undefined;
          continue;
        }
        let count = 0;
        while (count < particle.max && this.startsElement(particle)) {
          if (!this.element(particle, children)) return undefined;
          count++;
          this.skipSpace();
        }
        if (count < particle.min) return undefined;
      }
      this.skipSpace();
      // No child: fast-xml-parser reads the element as its (empty) text.
      value = Object.keys(children).length ? children : '';
    }
    if (!this.xml.startsWith(decl.endTag, this.at)) return undefined;
    this.at += decl.endTag.length;
    return value;
  }
}
