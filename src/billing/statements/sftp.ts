/**
 * The SFTP server that delivers statement files (docs/statements.md). The user name is the account number;
 * the only way in is the key pair `POST /v1/extrato-cnab/gerar-chaves` made (its public half is stored, and
 * the client must prove it holds the private half). Each account sees one directory, `/`, with its own
 * files, read from the database as the HTTPS download reads them, so any node serves any file. Nothing can
 * be written, removed, renamed or created; shells and commands are refused (only the sftp subsystem runs).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
// ssh2 is CommonJS: its named exports come through the default import.
import ssh2, { type Connection, type FileEntry, type SFTPWrapper } from 'ssh2';
import type { Database } from '../../platform/db/database.ts';
import { listFiles, sftpKeyOf, type StatementFileRow } from './store.ts';
import { statementBytes } from './files.ts';
import { sshKeyPair } from './keys.ts';

const { Server, utils } = ssh2;
const { OPEN_MODE, STATUS_CODE } = utils.sftp;
const WRITING = OPEN_MODE.WRITE | OPEN_MODE.APPEND | OPEN_MODE.CREAT | OPEN_MODE.TRUNC | OPEN_MODE.EXCL;
const FILE_MODE = 0o100444;
const DIRECTORY_MODE = 0o040555;

export interface SftpSettings {
  host: string;
  port: number;
  /** An OpenSSH or PEM private key file; made (ed25519) on first use when it does not exist. */
  hostKeyPath: string;
}

export interface SftpListener {
  address: { host: string; port: number };
  close(): Promise<void>;
}

type Log = { warn(obj: object, msg: string): void };

/** The host key: the configured file, or one made now and kept there for the next starts. */
function hostKey(file: string): Buffer {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, sshKeyPair().private, { mode: 0o600, flag: 'wx' });
  }
  return fs.readFileSync(file);
}

export async function listenForSftp(db: Database, settings: SftpSettings, log: Log): Promise<SftpListener> {
  const server = new Server({ hostKeys: [hostKey(settings.hostKeyPath)] }, (client) => serve(db, client, log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const clients = new Set<Connection>();
  server.on('connection', (client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
  });
  return {
    address: { host: settings.host, port },
    close: () =>
      new Promise((resolve) => {
        for (const client of clients) client.end();
        server.close(() => resolve());
      }),
  };
}

function serve(db: Database, client: Connection, log: Log): void {
  let accountId: number | undefined;
  client.on('error', (error) => log.warn({ err: error }, 'sftp client failed'));
  client.on('authentication', (auth) => {
    if (auth.method !== 'publickey') return auth.reject(['publickey']);
    sftpKeyOf(db, auth.username).then(
      (found) => {
        const allowed = found && utils.parseKey(found.publicKey);
        if (!found || !allowed || allowed instanceof Error) return auth.reject();
        const same = auth.key.algo === allowed.type && Buffer.from(auth.key.data).equals(allowed.getPublicSSH());
        if (!same) return auth.reject();
        // Without a signature the client only asks whether the key would do; with one it must be valid.
        if (auth.signature && auth.blob) {
          if (allowed.verify(auth.blob, auth.signature, auth.hashAlgo) !== true) return auth.reject();
          accountId = found.accountId;
        }
        auth.accept();
      },
      () => auth.reject(),
    );
  });
  client.on('ready', () => {
    client.on('session', (accept) => {
      const session = accept();
      session.on('sftp', (acceptSftp) => {
        if (accountId === undefined) return;
        files(db, accountId, acceptSftp(), log);
      });
    });
  });
}

const fileAttrs = (f: Pick<StatementFileRow, 'size_bytes' | 'generated_at'>) => {
  const seconds = Math.floor(f.generated_at.getTime() / 1000);
  return { mode: FILE_MODE, uid: 0, gid: 0, size: f.size_bytes, atime: seconds, mtime: seconds };
};
const DIRECTORY_ATTRS = { mode: DIRECTORY_MODE, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 };

function entry(f: StatementFileRow): FileEntry {
  const date = f.generated_at.toISOString().slice(0, 10);
  return {
    filename: f.name,
    longname: `-r--r--r--    1 pixd     pixd     ${String(f.size_bytes).padStart(10)} ${date} ${f.name}`,
    attrs: fileAttrs(f),
  };
}

/** `/`, `.`, `/name`, `name` and `/./name` all name the root or one file in it; anything deeper names nothing. */
function resolve(p: string): { root: true } | { root: false; name: string } | undefined {
  const normalized = path.posix.normalize(`/${p}`);
  if (normalized === '/') return { root: true };
  const name = normalized.slice(1);
  return name.includes('/') ? undefined : { root: false, name };
}

/** The SFTP requests of one account's session: reads of its files, refusals of everything else. */
function files(db: Database, accountId: number, sftp: SFTPWrapper, log: Log): void {
  const handles = new Map<number, { content: Buffer } | { listed: boolean }>();
  let nextHandle = 0;
  const newHandle = (state: { content: Buffer } | { listed: boolean }) => {
    const id = nextHandle++;
    handles.set(id, state);
    const handle = Buffer.alloc(4);
    handle.writeUInt32BE(id);
    return handle;
  };
  const stateOf = (handle: Buffer) => (handle.length === 4 ? handles.get(handle.readUInt32BE(0)) : undefined);
  const fail = (reqId: number) => (error: unknown) => {
    log.warn({ err: error }, 'sftp request failed');
    sftp.status(reqId, STATUS_CODE.FAILURE);
  };
  const fileOf = async (name: string) => (await listFiles(db, accountId)).find((f) => f.name === name);
  const denied = (reqId: number) => sftp.status(reqId, STATUS_CODE.PERMISSION_DENIED, 'somente leitura');

  sftp.on('REALPATH', (reqId, p) => {
    const target = resolve(p);
    const filename = !target ? path.posix.normalize(`/${p}`) : target.root ? '/' : `/${target.name}`;
    sftp.name(reqId, [{ filename, longname: filename, attrs: DIRECTORY_ATTRS }]);
  });
  const stat = (reqId: number, p: string) => {
    const target = resolve(p);
    if (target?.root) return sftp.attrs(reqId, DIRECTORY_ATTRS);
    if (!target) return sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
    fileOf(target.name).then(
      (f) => (f ? sftp.attrs(reqId, fileAttrs(f)) : sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE)),
      fail(reqId),
    );
  };
  sftp.on('STAT', stat);
  sftp.on('LSTAT', stat);
  sftp.on('OPENDIR', (reqId, p) => {
    if (!resolve(p)?.root) return sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
    sftp.handle(reqId, newHandle({ listed: false }));
  });
  sftp.on('READDIR', (reqId, handle) => {
    const state = stateOf(handle);
    if (!state || !('listed' in state)) return sftp.status(reqId, STATUS_CODE.FAILURE);
    if (state.listed) return sftp.status(reqId, STATUS_CODE.EOF);
    state.listed = true;
    listFiles(db, accountId).then((list) => sftp.name(reqId, list.map(entry)), fail(reqId));
  });
  sftp.on('OPEN', (reqId, p, flags) => {
    if (flags & WRITING) return denied(reqId);
    const target = resolve(p);
    if (!target || target.root) return sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
    statementBytes(db, accountId, target.name).then(
      (content) =>
        content === undefined
          ? sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE)
          : sftp.handle(reqId, newHandle({ content })),
      fail(reqId),
    );
  });
  sftp.on('READ', (reqId, handle, offset, length) => {
    const state = stateOf(handle);
    if (!state || !('content' in state)) return sftp.status(reqId, STATUS_CODE.FAILURE);
    if (offset >= state.content.length) return sftp.status(reqId, STATUS_CODE.EOF);
    sftp.data(reqId, state.content.subarray(offset, offset + length));
  });
  sftp.on('FSTAT', (reqId, handle) => {
    const state = stateOf(handle);
    if (!state) return sftp.status(reqId, STATUS_CODE.FAILURE);
    if (!('content' in state)) return sftp.attrs(reqId, DIRECTORY_ATTRS);
    sftp.attrs(reqId, { ...DIRECTORY_ATTRS, mode: FILE_MODE, size: state.content.length });
  });
  sftp.on('CLOSE', (reqId, handle) => {
    const known = handle.length === 4 && handles.delete(handle.readUInt32BE(0));
    sftp.status(reqId, known ? STATUS_CODE.OK : STATUS_CODE.FAILURE);
  });
  for (const event of ['WRITE', 'REMOVE', 'RENAME', 'MKDIR', 'RMDIR', 'SETSTAT', 'FSETSTAT', 'SYMLINK'] as const)
    sftp.on(event, (reqId: number) => denied(reqId));
  sftp.on('READLINK', (reqId) => sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED));
  // The client's end of input is the end of the session: close ours, so its sftp exits.
  sftp.on('end', () => sftp.end());
  sftp.on('EXTENDED', (reqId) => sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED));
}
