// What a build of src/ was made from: every source file's path, size and modification time. bin/pixd.js runs
// the build only while the stamp still matches; scripts/build.ts writes it. Plain JavaScript: it runs before
// anything can load TypeScript.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function sourceStamp(srcDir) {
  const hash = crypto.createHash('sha256');
  const files = fs.readdirSync(srcDir, { recursive: true }).map(String).sort();
  for (const file of files) {
    const stat = fs.statSync(path.join(srcDir, file));
    if (stat.isFile()) hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\0`);
  }
  return hash.digest('hex');
}
