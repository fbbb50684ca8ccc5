/**
 * A reader of SPI messages in their plain form, for a message libxml2 has just validated (xsd.ts): the tree
 * fast-xml-parser builds with messages.ts's options (names without their namespace prefix, `xmlns` attributes
 * dropped, other attributes as `@name`, text trimmed, a repeated element as an array), built in one pass of
 * `indexOf` instead of fast-xml-parser's general machinery, which was most of an inbound pacs.008's XML cost
 * (docs/performance.md, "Session 13"). Equality with fast-xml-parser is tested on every shape a valid message
 * can take (test/spi/plain-xml.test.ts).
 *
 * Plain means: no entity or character reference (`&`), no comment, CDATA section or DOCTYPE (`<!`), no
 * processing instruction after the XML declaration. Whatever is not plain is answered undefined and read by
 * fast-xml-parser, as before. Well-formedness is not checked here: the validation before it did.
 */

// biome-ignore lint/suspicious/noExplicitAny: the tree's shape is the schema's, fixed by the validation before.
export type XmlTree = any;

interface OpenElement {
  name: string;
  value: Record<string, XmlTree>;
  text: string;
  /** Children or attributes: then the element is an object, else its text. */
  structured: boolean;
}

const SLASH = 47;
const GREATER = 62;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

function addChild(parent: OpenElement, name: string, value: XmlTree): void {
  parent.structured = true;
  const earlier = parent.value[name];
  if (earlier === undefined) parent.value[name] = value;
  else if (Array.isArray(earlier)) earlier.push(value);
  else parent.value[name] = [earlier, value];
}

function close(element: OpenElement, parent: OpenElement): void {
  const text = element.text.trim();
  let value: XmlTree = text;
  if (element.structured) {
    value = element.value;
    if (text !== '') value['#text'] = text;
  }
  addChild(parent, element.name, value);
}

/** Reads a start tag's attributes from `at` (after its name); answers where the tag ends and whether it is empty. */
function readAttributes(xml: string, at: number, element: OpenElement): { end: number; empty: boolean } {
  let i = at;
  for (;;) {
    while (isSpace(xml.charCodeAt(i))) i++;
    const code = xml.charCodeAt(i);
    if (code === GREATER) return { end: i + 1, empty: false };
    if (code === SLASH) return { end: i + 2, empty: true };
    const equals = xml.indexOf('=', i);
    const name = xml.slice(i, equals).trim();
    let quote = equals + 1;
    while (isSpace(xml.charCodeAt(quote))) quote++;
    const closing = xml.indexOf(xml[quote], quote + 1);
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) {
      element.value[`@${localName(name)}`] = xml.slice(quote + 1, closing);
      element.structured = true;
    }
    i = closing + 1;
  }
}

/** The tree of a validated message in plain form (`{ Document: … }`), or undefined when it is not plain. */
export function readPlainXml(xml: string): Record<string, XmlTree> | undefined {
  let at = xml.startsWith('<?xml') ? xml.indexOf('?>') + 2 : 0;
  if (xml.includes('&') || xml.includes('<!') || xml.includes('<?', at)) return undefined;
  const root: OpenElement = { name: '', value: {}, text: '', structured: false };
  const open: OpenElement[] = [root];
  for (;;) {
    const tag = xml.indexOf('<', at);
    if (tag < 0) break;
    const current = open[open.length - 1];
    if (tag > at) current.text += xml.slice(at, tag);
    if (xml.charCodeAt(tag + 1) === SLASH) {
      at = xml.indexOf('>', tag) + 1;
      const element = open.pop()!;
      close(element, open[open.length - 1]);
      continue;
    }
    let nameEnd = tag + 1;
    for (let code = xml.charCodeAt(nameEnd); !isSpace(code) && code !== GREATER && code !== SLASH; )
      code = xml.charCodeAt(++nameEnd);
    const element: OpenElement = {
      name: localName(xml.slice(tag + 1, nameEnd)),
      value: {},
      text: '',
      structured: false,
    };
    const { end, empty } = readAttributes(xml, nameEnd, element);
    at = end;
    if (empty) close(element, current);
    else open.push(element);
  }
  return root.value;
}
