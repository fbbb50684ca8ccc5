/**
 * Standalone bench scenarios keep their results in a marked section inside the hand-written notes of
 * docs/performance.md, which `npm run bench` preserves when it rewrites the rest of the file.
 */
import fs from 'node:fs';

const NOTES_END = '<!-- notes:end -->';

/** Replaces the section between `<!-- name:start -->` and `<!-- name:end -->`, or adds it at the end of the notes. */
export function writeNotesSection(file: string, name: string, section: string): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${section}${end}`;
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Performance\n';
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  let next: string;
  if (from >= 0 && to > from) next = text.slice(0, from) + block + text.slice(to + end.length);
  else if (text.includes(NOTES_END)) next = text.replace(NOTES_END, `${block}\n\n${NOTES_END}`);
  else next = `${text}\n${block}\n`;
  fs.writeFileSync(file, next);
}
