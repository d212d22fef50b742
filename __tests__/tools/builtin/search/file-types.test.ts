import { describe, expect, it } from 'vitest';
import {
  KNOWN_FILE_TYPES,
  compileFileType,
  unknownTypeMessage,
} from '../../../../src/tools/builtin/search/file-types.js';

describe('compileFileType', () => {
  it.each([
    ['js', 'app.js', true],
    ['js', 'app.mjs', true],
    ['js', 'app.ts', false],
    ['ts', 'view.tsx', true],
    ['py', 'main.py', true],
    ['rust', 'lib.rs', true],
    ['c', 'x.h', true],
    ['cpp', 'x.hpp', true],
    ['md', 'README.md', true],
    ['yaml', 'ci.yml', true],
    ['sh', '.bashrc', true],
    ['docker', 'Dockerfile.dev', true],
    ['make', 'GNUmakefile', true],
    ['go', 'main.go.txt', false],
  ])('%s matches %s: %s', (type, name, expected) => {
    expect(compileFileType(type)!(name)).toBe(expected);
  });

  it('knows the common languages', () => {
    for (const name of [
      'js',
      'ts',
      'py',
      'rust',
      'go',
      'java',
      'c',
      'cpp',
      'md',
      'json',
      'yaml',
      'sh',
      'html',
      'css',
    ]) {
      expect(KNOWN_FILE_TYPES).toContain(name);
    }
  });

  it('returns undefined for a name it does not know, own properties only', () => {
    expect(compileFileType('klingon')).toBeUndefined();
    expect(compileFileType('constructor')).toBeUndefined();
    expect(unknownTypeMessage('klingon')).toBe('unrecognized file type: klingon');
  });
});
