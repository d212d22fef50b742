import { describe, expect, it } from 'vitest';
import {
  imageTypeFromExtension,
  isBinaryExtension,
  sniffImageType,
} from '../../../../src/tools/builtin/file/file-kinds.js';

describe('imageTypeFromExtension', () => {
  it('maps the four image types the API takes, case-insensitively', () => {
    expect(imageTypeFromExtension('/a/b.PNG')).toBe('image/png');
    expect(imageTypeFromExtension('/a/b.jpeg')).toBe('image/jpeg');
    expect(imageTypeFromExtension('/a/b.webp')).toBe('image/webp');
    expect(imageTypeFromExtension('/a/b.bmp')).toBeUndefined();
    expect(imageTypeFromExtension('/a/constructor')).toBeUndefined();
  });
});

describe('isBinaryExtension', () => {
  it('knows archives, executables and documents but not source files', () => {
    expect(isBinaryExtension('x.tar')).toBe(true);
    expect(isBinaryExtension('x.EXE')).toBe(true);
    expect(isBinaryExtension('x.pdf')).toBe(true);
    expect(isBinaryExtension('x.ts')).toBe(false);
    expect(isBinaryExtension('Makefile')).toBe(false);
  });
});

describe('sniffImageType', () => {
  it('recognises each format by its magic bytes', () => {
    expect(sniffImageType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d]))).toBe('image/png');
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('plain'))).toBeUndefined();
  });
});
