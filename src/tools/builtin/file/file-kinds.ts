/**
 * Which files Read shows as images, which it refuses as binary. Extensions give the first answer;
 * for images the magic bytes win, because the API rejects an image whose declared type is wrong.
 */
import { extname } from 'node:path';
import type { ImageBlock } from '../../../model/types.js';

export type ImageMediaType = ImageBlock['source']['media_type'];

const IMAGE_EXTENSIONS = new Map<string, ImageMediaType>([
  ['.png', 'image/png'],
  ['.jpg', 'image/jpeg'],
  ['.jpeg', 'image/jpeg'],
  ['.gif', 'image/gif'],
  ['.webp', 'image/webp'],
]);

// Space-separated so the list stays compact under the formatter.
const BINARY_EXTENSIONS = new Set(
  [
    // archives and packages
    'zip gz tgz bz2 xz zst 7z rar tar jar war whl deb rpm dmg iso apk',
    // executables, objects, libraries, bytecode
    'exe dll so dylib o obj a lib bin class pyc pyo wasm node',
    // media the API cannot take as an image block
    'bmp ico tif tiff psd heic avif mp3 mp4 m4a wav flac ogg mov avi mkv webm',
    // documents, data stores, fonts
    'pdf doc docx xls xlsx ppt pptx odt sqlite db ttf otf woff woff2 eot',
  ]
    .join(' ')
    .split(' ')
    .map((extension) => `.${extension}`),
);

function extensionOf(path: string): string {
  return extname(path).toLowerCase();
}

export function imageTypeFromExtension(path: string): ImageMediaType | undefined {
  return IMAGE_EXTENSIONS.get(extensionOf(path));
}

export function isBinaryExtension(path: string): boolean {
  return BINARY_EXTENSIONS.has(extensionOf(path));
}

export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (ascii(0, 4) === 'GIF8') return 'image/gif';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}
