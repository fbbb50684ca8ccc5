/**
 * /favicon.ico: a 16×16 icon drawn here (a diamond in the console's accent colour on transparent), so browsers opening the console,
 * the QR page or checkout find one instead of logging a 404 for every page. ICO holding one 32-bit BMP.
 */
const SIZE = 16;
/** BGRA of the diamond: the console's accent colour (#0a58ca). */
const FILL = [0xca, 0x58, 0x0a, 0xff];

export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++)
    for (let col = 0; col < SIZE; col++) {
      // A diamond around the centre, as Pix's mark is one.
      const inside = Math.abs(col - 7.5) + Math.abs(row - 7.5) <= 7.5;
      if (inside) pixels.set(FILL, (row * SIZE + col) * 4);
    }
  const mask = Buffer.alloc((SIZE * SIZE) / 8); // every pixel drawn by its alpha, none masked
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8); // the image and its mask, stacked
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10);
  header.writeUInt16LE(32, 12);
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}
