import { describe, expect, it } from 'vitest';
import { hiddenNote, withoutHidden } from '../../../../src/tools/builtin/search/hidden-files.js';

describe('withoutHidden', () => {
  it('keeps every path without a predicate', () => {
    expect(withoutHidden(['/a', '/b'], undefined)).toEqual({ visible: ['/a', '/b'], hidden: 0 });
  });

  it('drops and counts the paths the predicate hides, keeping the order', () => {
    const isReadDenied = (path: string) => path.endsWith('.env');
    expect(withoutHidden(['/c', '/.env', '/a', '/x/.env'], isReadDenied)).toEqual({
      visible: ['/c', '/a'],
      hidden: 2,
    });
  });
});

describe('hiddenNote', () => {
  it('counts files in the singular and the plural', () => {
    expect(hiddenNote(1)).toBe('(1 file hidden by permission rules)');
    expect(hiddenNote(3)).toBe('(3 files hidden by permission rules)');
  });
});
