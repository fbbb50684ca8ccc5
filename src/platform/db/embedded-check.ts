/**
 * Whether an embedded database (PGlite) can be served from. PGlite answers a cluster it cannot start with
 * `RuntimeError: Aborted()` and a wasm stack, and it starts on a cluster whose rarely read catalogs are
 * garbage and reports healthy until a statement touches them. So every open of one:
 *
 * - refuses a data directory that held a service but whose cluster directory is gone: a new empty cluster there
 *   would be a new service with every credential dead (and, left behind, would open as if nothing happened).
 *   `pixd start --reinitialize` is the explicit way to start over;
 * - checks that the files PostgreSQL needs to start are there (each entry of the cluster was deleted in turn:
 *   these are the ones without which PostgreSQL does not start, or starts and fails at its next checkpoint);
 * - checks `global/pg_control` (its size and CRC: PostgreSQL's own complaint about a damaged one is "database
 *   files are incompatible with server");
 * - names PostgreSQL's own complaint (its last PANIC or FATAL line, which PGlite hands to `onStderr`) when the
 *   cluster does not open anyway;
 * - reads every page of every system catalog back from disk and verifies its checksum (clusters are made with
 *   data checksums) and header, as PostgreSQL does when it reads a page: random bytes over a catalog file are
 *   found at start, not by the first statement that happens to read it.
 *
 * User tables are not read at start (that would read the whole database at every start): PostgreSQL verifies
 * each page when it reads it, so a damaged table page fails the statements that touch it, and `pixd ledger
 * verify` reads every ledger line. Each refusal is one line naming the problem and the fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { serviceTraces } from '../state-files.ts';

export class DamagedDataDir extends Error {}

/**
 * Entries of a cluster directory without which PostgreSQL does not start or cannot checkpoint (every
 * database directory under base/ also needs its PG_VERSION and pg_filenode.map).
 */
const CLUSTER_ENTRIES = [
  'PG_VERSION',
  'postgresql.conf',
  'pg_hba.conf',
  'global/pg_control',
  'global/pg_filenode.map',
  'base',
  'pg_wal',
  'pg_xact',
  'pg_multixact/offsets',
  'pg_multixact/members',
  'pg_subtrans',
  'pg_twophase',
  'pg_commit_ts',
  'pg_notify',
  'pg_replslot',
  'pg_logical/snapshots',
  'pg_logical/mappings',
];
const DATABASE_ENTRIES = ['PG_VERSION', 'pg_filenode.map'];

const PAGE_BYTES = 8192;
/** Blocks per 1 GB segment file (`<relation>.1`, `.2`, …): a block's number counts across segments. */
const SEGMENT_BLOCKS = (1024 * 1024 * 1024) / PAGE_BYTES;
/** Relations PostgreSQL made at initdb (system catalogs, their indexes and TOAST) have object ids below this. */
const FIRST_NORMAL_OBJECT_ID = 16384;
/** PostgreSQL's last lines on stderr kept while a cluster opens, to name why it did not. */
const STDERR_LINES_KEPT = 20;

const recovery = (clusterDir: string) =>
  `restore the data directory from a backup, or move ${clusterDir} aside and start over as a new service ` +
  'with pixd start --reinitialize (its credentials stop working)';

const damaged = (clusterDir: string, what: string) =>
  new DamagedDataDir(`the embedded database in ${clusterDir} is damaged (${what}): ${recovery(clusterDir)}`);

/**
 * Before the cluster opens: whether there is one to open (`absent`: a new one may be made), refusing a missing
 * one where a service lived unless the caller starts a new service, and one that misses a file it needs.
 */
export function checkCluster(dataDir: string, clusterDir: string, newService: boolean): 'present' | 'absent' {
  if (!fs.existsSync(clusterDir) || fs.readdirSync(clusterDir).length === 0) {
    const traces = serviceTraces(dataDir);
    if (traces && !newService)
      throw new DamagedDataDir(
        `the data directory ${dataDir} belongs to an existing service (${traces}), but its embedded database ` +
          `(${clusterDir}) is gone: restore it from a backup, or start over as a new service with ` +
          'pixd start --reinitialize (its credentials stop working)',
      );
    return 'absent';
  }
  const databases = fs.existsSync(path.join(clusterDir, 'base'))
    ? fs.readdirSync(path.join(clusterDir, 'base')).map((oid) => path.join('base', oid))
    : [];
  const missing = [
    ...CLUSTER_ENTRIES,
    ...databases.flatMap((database) => DATABASE_ENTRIES.map((entry) => path.join(database, entry))),
  ].filter((entry) => !fs.existsSync(path.join(clusterDir, entry)));
  if (missing.length) throw damaged(clusterDir, `${missing.join(', ')} missing`);
  const control = controlFileDamage(fs.readFileSync(path.join(clusterDir, 'global/pg_control')));
  if (control) throw damaged(clusterDir, `global/pg_control ${control}`);
  return 'present';
}

/** PostgreSQL's control file: 8 KB whose structure ends in a CRC-32C of the bytes before it. */
const CONTROL_FILE_BYTES = 8192;
/**
 * The structure's size changes between PostgreSQL releases, so its CRC is looked for at every 4-byte boundary
 * of the first KB: random bytes match at one of them once in some ten million.
 */
const CONTROL_STRUCT_MAX_BYTES = 1024;
const CRC32C_TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  return crc >>> 0;
});

function controlFileDamage(bytes: Buffer): string | undefined {
  if (bytes.length !== CONTROL_FILE_BYTES) return `is ${bytes.length} bytes, not ${CONTROL_FILE_BYTES}`;
  let crc = 0xffffffff;
  for (let at = 0; at < CONTROL_STRUCT_MAX_BYTES; at++) {
    if (at % 4 === 0 && at >= 8 && (crc ^ 0xffffffff) >>> 0 === bytes.readUInt32LE(at)) return undefined;
    crc = CRC32C_TABLE[(crc ^ bytes[at]) & 0xff] ^ (crc >>> 8);
  }
  return 'fails its CRC';
}

/**
 * Opens the cluster (`create` is given the listener for PostgreSQL's stderr) and verifies its catalogs; a
 * cluster that does not open, or whose catalogs are damaged, is a `DamagedDataDir` naming PostgreSQL's reason.
 */
export async function openVerifiedCluster(
  clusterDir: string,
  create: (onStderr: (line: string) => boolean) => Promise<PGlite>,
): Promise<PGlite> {
  const stderr: string[] = [];
  let db: PGlite;
  try {
    db = await create((line) => {
      stderr.push(line);
      if (stderr.length > STDERR_LINES_KEPT) stderr.shift();
      return false;
    });
  } catch (error) {
    const complaint = stderr.filter((line) => /\b(PANIC|FATAL):/.test(line)).pop();
    const reason = complaint?.replace(/^.*?\b(PANIC|FATAL):\s*/, '') ?? String(error);
    throw new DamagedDataDir(
      `the embedded database in ${clusterDir} does not open (PostgreSQL: ${reason}): ${recovery(clusterDir)}`,
    );
  }
  try {
    await verifyCatalogs(db, clusterDir);
    return db;
  } catch (error) {
    await db.close().catch(() => undefined);
    if (error instanceof DamagedDataDir) throw error;
    // The catalog of relations itself could not be read: PostgreSQL says which page.
    throw damaged(clusterDir, (error as Error).message);
  }
}

async function verifyCatalogs(db: PGlite, clusterDir: string): Promise<void> {
  const { rows } = await db.query<{ relation: string; file: string | null; checksums: boolean }>(
    `select relname as relation, pg_relation_filepath(oid) as file, current_setting('data_checksums') = 'on' as checksums
       from pg_class where oid < $1`,
    [FIRST_NORMAL_OBJECT_ID],
  );
  const problems: string[] = [];
  for (const { relation, file, checksums } of rows) {
    if (file === null) continue; // no storage (a view)
    const problem = relationDamage(path.join(clusterDir, file), checksums);
    if (problem) problems.push(`${file} (${relation}) ${problem}`);
  }
  if (problems.length)
    throw damaged(clusterDir, problems.length === 1 ? problems[0] : `${problems[0]}, and ${problems.length - 1} more`);
}

/** What is wrong with a relation's files (its main fork), or undefined. */
function relationDamage(file: string, checksums: boolean): string | undefined {
  for (let segment = 0; ; segment++) {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(segment === 0 ? file : `${file}.${segment}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return segment === 0 ? 'is missing' : undefined;
    }
    if (bytes.length % PAGE_BYTES) return 'is not a whole number of pages';
    for (let offset = 0; offset < bytes.length; offset += PAGE_BYTES) {
      const block = segment * SEGMENT_BLOCKS + offset / PAGE_BYTES;
      const problem = pageDamage(bytes.subarray(offset, offset + PAGE_BYTES), block, checksums);
      if (problem) return `block ${block} ${problem}`;
    }
    // A next segment exists only once this one is full.
    if (bytes.length < SEGMENT_BLOCKS * PAGE_BYTES) return undefined;
  }
}

const ZERO_PAGE = Buffer.alloc(PAGE_BYTES);
/** The page header's flag bits PostgreSQL defines; any other set is a damaged header. */
const VALID_FLAG_BITS = 0x0007;

/** PostgreSQL's own verification of a page it reads (PageIsVerified): header sanity, then the checksum. */
function pageDamage(page: Buffer, block: number, checksums: boolean): string | undefined {
  const flags = page.readUInt16LE(10);
  const lower = page.readUInt16LE(12);
  const upper = page.readUInt16LE(14);
  const special = page.readUInt16LE(16);
  // A page never initialised (upper 0) is fine only when it is all zeros (a relation extended, not yet written).
  if (upper === 0) return page.equals(ZERO_PAGE) ? undefined : 'has a damaged header';
  if (flags & ~VALID_FLAG_BITS || lower > upper || upper > special || special > PAGE_BYTES || special % 8)
    return 'has a damaged header';
  if (checksums && pageChecksum(page, block) !== page.readUInt16LE(8)) return 'fails its checksum';
  return undefined;
}

/**
 * PostgreSQL's data page checksum: 32 interleaved FNV-1a-like sums over the page's 32-bit words (the checksum
 * field counted as zero), two mixing rounds of zeros, folded by xor, the block number mixed in, reduced to
 * 1..65535.
 */
const CHECKSUM_LANES = 32;
const FNV_PRIME = 16777619;
const LANE_OFFSETS = Uint32Array.from([
  0x5b1f36e9, 0xb8525960, 0x02ab50aa, 0x1de66d2a, 0x79ff467a, 0x9bb9f8a3, 0x217e7cd2, 0x83e13d2c, 0xf8d4474f,
  0xe39eb970, 0x42c6ae16, 0x993216fa, 0x7b093b5d, 0x98daff3c, 0xf718902a, 0x0b1c9cdb, 0xe58f764b, 0x187636bc,
  0x5d7b3bb1, 0xe73de7de, 0x92bec979, 0xcca6c0b2, 0x304a0979, 0x85aa43d4, 0x783125bb, 0x6ca8eaa2, 0xe407eac6,
  0x4b5cfc3e, 0x9fbf8c76, 0x15ca20be, 0xf2ca9fd3, 0x959bd756,
]);
/** The checksum field is the low half of the page's third word (little-endian). */
const CHECKSUM_WORD = 2;
const lanes = new Uint32Array(CHECKSUM_LANES);

const mix = (sum: number, value: number) => {
  const folded = (sum ^ value) >>> 0;
  return (Math.imul(folded, FNV_PRIME) ^ (folded >>> 17)) >>> 0;
};

export function pageChecksum(page: Buffer, block: number): number {
  const words = new DataView(page.buffer, page.byteOffset, PAGE_BYTES);
  lanes.set(LANE_OFFSETS);
  for (let word = 0; word < PAGE_BYTES / 4; word++) {
    const value = words.getUint32(word * 4, true);
    const lane = word % CHECKSUM_LANES;
    lanes[lane] = mix(lanes[lane], word === CHECKSUM_WORD ? value & 0xffff0000 : value);
  }
  let result = 0;
  for (let lane = 0; lane < CHECKSUM_LANES; lane++) result ^= mix(mix(lanes[lane], 0), 0);
  return (((result ^ block) >>> 0) % 65535) + 1;
}
