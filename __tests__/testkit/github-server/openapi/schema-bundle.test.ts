import { describe, expect, it } from 'vitest';
import {
  SchemaBundler,
  resolvePointer,
} from '../../../../testkit/github-server/openapi/schema-bundle.js';

const document = {
  components: {
    schemas: {
      user: {
        type: 'object',
        description: 'A user',
        properties: {
          login: { type: 'string', example: 'octocat' },
          manager: { $ref: '#/components/schemas/user' },
        },
      },
      'nullable-label': { type: 'string', nullable: true, enum: ['bug', 'docs'] },
    },
  },
};

describe('SchemaBundler', () => {
  describe('bundle', () => {
    it('copies each referenced schema once into definitions, keeping cycles as references', () => {
      const bundler = new SchemaBundler(document);
      const schema = bundler.bundle({
        type: 'array',
        items: { $ref: '#/components/schemas/user' },
      });
      expect(schema).toEqual({
        type: 'array',
        items: { $ref: '#/definitions/components.schemas.user' },
        definitions: {
          'components.schemas.user': {
            type: 'object',
            properties: {
              login: { type: 'string' },
              manager: { $ref: '#/definitions/components.schemas.user' },
            },
          },
        },
      });
    });

    it('turns nullable with a type into a type list and lets an enum hold null', () => {
      const bundler = new SchemaBundler(document);
      const schema = bundler.bundle({ $ref: '#/components/schemas/nullable-label' });
      expect(schema['definitions']).toEqual({
        'components.schemas.nullable-label': {
          type: ['string', 'null'],
          enum: ['bug', 'docs', null],
        },
      });
    });

    it('turns nullable without a type into an anyOf with null', () => {
      const bundler = new SchemaBundler(document);
      expect(bundler.bundle({ nullable: true, oneOf: [{ type: 'string' }] })).toEqual({
        anyOf: [{ type: 'null' }, { oneOf: [{ type: 'string' }] }],
        definitions: {},
      });
    });

    it('drops nullable: false', () => {
      expect(new SchemaBundler(document).bundle({ type: 'string', nullable: false })).toEqual({
        type: 'string',
        definitions: {},
      });
    });

    it('drops annotations but keeps properties that happen to carry their names', () => {
      const bundler = new SchemaBundler(document);
      const schema = bundler.bundle({
        type: 'object',
        title: 'Label',
        'x-github': { githubCloudOnly: false },
        properties: { description: { type: 'string', description: 'shown under the name' } },
      });
      expect(schema).toEqual({
        type: 'object',
        properties: { description: { type: 'string' } },
        definitions: {},
      });
    });

    it('collects the format names it meets', () => {
      const bundler = new SchemaBundler(document);
      bundler.bundle({
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time' },
          repo: { type: 'string', format: 'repo.nwo' },
        },
      });
      expect([...bundler.formats].sort()).toEqual(['date-time', 'repo.nwo']);
    });
  });

  describe('when a reference cannot be followed', () => {
    it('refuses a reference to another document', () => {
      expect(() => new SchemaBundler(document).bundle({ $ref: 'other.json#/x' })).toThrow(
        'Only local references are supported in the description, got other.json#/x',
      );
    });

    it('names the pointer that leads nowhere', () => {
      expect(() =>
        new SchemaBundler(document).bundle({ $ref: '#/components/schemas/missing' }),
      ).toThrow('The description has nothing at #/components/schemas/missing');
    });
  });
});

describe('resolvePointer', () => {
  it('follows escaped tokens and array indexes', () => {
    expect(
      resolvePointer({ paths: { '/a/b': { list: ['x', 'y'] } } }, '#/paths/~1a~1b/list/1'),
    ).toBe('y');
  });

  it('throws for a missing value', () => {
    expect(() => resolvePointer({}, '#/nothing')).toThrow(
      'The description has nothing at #/nothing',
    );
  });
});
