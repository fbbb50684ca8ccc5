/** The TypeScript sources under a folder of the repository, for tests that read the code itself. */
import fs from 'node:fs';
import path from 'node:path';

/** Absolute paths of every `.ts` file under `dir` (relative to the repository root), sorted. */
export function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.resolve(dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
