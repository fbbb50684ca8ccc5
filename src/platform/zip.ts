/**
 * A ZIP archive of one file (PKWARE APPNOTE 6.3: a local header, the deflated data, one central directory
 * entry and the end record), for statements asked `comprimir_arquivos`. Node 20's zlib has no crc32 yet, and one
 * entry needs neither ZIP64 nor a library.
 */
import zlib from 'node:zlib';

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** MS-DOS date and time, in the archive's local time: UTC here, as the files' own timestamps. */
function dosDateTime(at: Date): { date: number; time: number } {
  const year = Math.max(1980, at.getUTCFullYear());
  return {
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
  };
}

const DEFLATE = 8;
const VERSION_NEEDED = 20;
/** Bit 11: the name is UTF-8. */
const UTF8_NAME = 0x0800;

export function zipOne(name: string, content: Uint8Array, modifiedAt: Date): Buffer {
  const fileName = Buffer.from(name, 'utf8');
  const data = zlib.deflateRawSync(content);
  const crc = crc32(content);
  const { date, time } = dosDateTime(modifiedAt);

  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(VERSION_NEEDED, 4);
  local.writeUInt16LE(UTF8_NAME, 6);
  local.writeUInt16LE(DEFLATE, 8);
  local.writeUInt16LE(time, 10);
  local.writeUInt16LE(date, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(fileName.length, 26);

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(VERSION_NEEDED, 4);
  local.copy(central, 6, 4, 28); // version needed … name length: the same fields in the same order
  // extra, comment, disk, internal and external attributes: zero; the local header is at offset 0.
  const directoryOffset = local.length + fileName.length + data.length;
  const directorySize = central.length + fileName.length;

  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(directoryOffset, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}
