/**
 * A statement file's bytes, as HTTPS and SFTP hand them out. The CNAB text is what is stored; a schedule asked
 * `comprimir_arquivos` names its files `.zip`, and such a file is that text as the one entry of a ZIP (named
 * `.RET`), made on the way out from the stored text and its generation time, so every download is the same bytes.
 */
import type { Sql } from '../../platform/db/database.ts';
import { zipOne } from '../../platform/zip.ts';
import { fileContent } from './store.ts';

export const isCompressed = (name: string) => name.endsWith('.zip');

/** What a file named `name` serves: the stored text, or its ZIP. Also gives the size the listings show. */
export function servedBytes(name: string, content: string, generatedAt: Date): Buffer {
  const text = Buffer.from(content); // printable ASCII (cnab.ts)
  return isCompressed(name) ? zipOne(name.replace(/\.zip$/, '.RET'), text, generatedAt) : text;
}

export async function statementBytes(sql: Sql, accountId: number, name: string): Promise<Buffer | undefined> {
  const file = await fileContent(sql, accountId, name);
  return file && servedBytes(name, file.content, file.generated_at);
}
