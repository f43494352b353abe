import { PNG } from 'pngjs';

export interface DecodedImage {
  format: string;
  width: number;
  height: number;
}
export type ImageResult = { ok: true; image: DecodedImage } | { ok: false; reason: string; unknownFormat?: boolean };

/** Split a data URI (RFC 2397) into media type and bytes. */
export function parseDataUri(uri: string): { mediaType: string; bytes: Buffer } | undefined {
  const m = /^data:([^,;]*)((?:;[^,;=]+=[^,;]*)*)(;base64)?,(.*)$/s.exec(uri);
  if (!m) return undefined;
  const mediaType = (m[1] || 'text/plain').toLowerCase();
  const data = m[4] ?? '';
  const bytes = m[3] ? Buffer.from(data, 'base64') : Buffer.from(decodeURIComponent(data), 'utf8');
  return { mediaType, bytes };
}

function jpegSize(b: Buffer): DecodedImage | undefined {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { format: 'jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
    }
    i += 2 + len;
  }
  return undefined;
}

function webpSize(b: Buffer): DecodedImage | undefined {
  const chunk = b.toString('ascii', 12, 16);
  if (chunk === 'VP8X') return { format: 'webp', width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return { format: 'webp', width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') return { format: 'webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  return undefined;
}

function svgSize(text: string): DecodedImage | undefined {
  const tag = /<svg\b[^>]*>/i.exec(text)?.[0];
  if (!tag) return undefined;
  const attr = (n: string) => new RegExp(`\\b${n}\\s*=\\s*["']\\s*([\\d.]+)(px)?\\s*["']`, 'i').exec(tag)?.[1];
  const w = attr('width');
  const h = attr('height');
  if (w && h) return { format: 'svg', width: Number(w), height: Number(h) };
  const vb = /\bviewBox\s*=\s*["']\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*["']/i.exec(tag);
  return vb ? { format: 'svg', width: Number(vb[1]), height: Number(vb[2]) } : undefined;
}

/** Decode an image enough to know its size: PNG fully (pngjs), GIF, JPEG, WebP and SVG by their headers. */
export function decodeImage(bytes: Buffer): ImageResult {
  try {
    if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
      const png = PNG.sync.read(bytes);
      return { ok: true, image: { format: 'png', width: png.width, height: png.height } };
    }
    const head = bytes.toString('ascii', 0, 6);
    if (head === 'GIF87a' || head === 'GIF89a')
      return { ok: true, image: { format: 'gif', width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) } };
    if (bytes[0] === 0xff && bytes[1] === 0xd8) {
      const image = jpegSize(bytes);
      return image ? { ok: true, image } : { ok: false, reason: 'a JPEG without a frame header' };
    }
    if (bytes.toString('ascii', 0, 4) === 'RIFF' && bytes.toString('ascii', 8, 12) === 'WEBP') {
      const image = webpSize(bytes);
      return image ? { ok: true, image } : { ok: false, reason: 'a WebP without a known chunk' };
    }
    const text = bytes.toString('utf8');
    if (/<svg\b/i.test(text)) {
      const image = svgSize(text);
      return image ? { ok: true, image } : { ok: false, reason: 'an SVG without width/height or viewBox', unknownFormat: true };
    }
    return { ok: false, reason: 'not a PNG, GIF, JPEG, WebP or SVG image', unknownFormat: true };
  } catch (e) {
    return { ok: false, reason: `the image does not decode: ${(e as Error).message}` };
  }
}
