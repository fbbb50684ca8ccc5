/**
 * The XML text of a message body, as fast-xml-parser's XMLBuilder writes it with the options messages.ts used
 * (`@`-prefixed attributes, `#text` for an element's text beside its attributes), byte for byte
 * (test/spi/fast-paths.test.ts compares the two). Written here because the builder's general machinery (path
 * matchers, entity tables, value processors) cost about 60 µs of every pacs.008, a tenth of a sandbox payment's
 * CPU (docs/performance.md, session 15); the messages need only elements, attributes and text.
 */

/** A body: elements by name; a value is text or a nested body; undefined writes nothing. */
export type XmlBody = { readonly [name: string]: XmlValue };
type XmlValue = string | number | undefined | XmlBody;

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const SPECIAL = /[&<>"']/g;

const escaped = (text: string) => text.replace(SPECIAL, (c) => ENTITY[c]);

export function writeXml(body: XmlBody): string {
  let xml = '';
  for (const name of Object.keys(body)) xml += element(name, body[name]);
  return xml;
}

function element(name: string, value: XmlValue): string {
  if (value === undefined) return '';
  if (typeof value !== 'object') return `<${name}>${escaped(String(value))}</${name}>`;
  let attributes = '';
  let inner = '';
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (child === undefined) continue;
    if (key.startsWith('@')) attributes += ` ${key.slice(1)}="${escaped(String(child))}"`;
    else if (key === '#text') inner += escaped(String(child));
    else inner += element(key, child);
  }
  return `<${name}${attributes}>${inner}</${name}>`;
}
