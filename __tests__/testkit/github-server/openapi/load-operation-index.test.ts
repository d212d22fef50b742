import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../../../testkit/github-server/handlers/index.js';
import type { OperationIndex } from '../../../../testkit/github-server/index.js';
import {
  createOperationIndex,
  loadOperationIndex,
} from '../../../../testkit/github-server/openapi/load-operation-index.js';

let index: OperationIndex;
let loadMs = 0;

beforeAll(async () => {
  const started = performance.now();
  index = await loadOperationIndex();
  loadMs = performance.now() - started;
});

function check(method: string, path: string, query = '', body?: unknown): string[] {
  const match = index.match(method, path);
  if (match === undefined) throw new Error(`no route ${method} ${path}`);
  return index.validate(match, { query: new URLSearchParams(query), body });
}

describe('loadOperationIndex', () => {
  it('indexes every operation of the description in well under two seconds', () => {
    expect(index.operationCount).toBeGreaterThan(1000);
    // Generous for a loaded CI machine; about 0.5 s unloaded (reading and parsing 13 MB).
    expect(loadMs).toBeLessThan(4000);
  });

  it('reads the description once per process', async () => {
    expect(await loadOperationIndex()).toBe(index);
  });

  it('knows every route the fake implements, with the same template', () => {
    for (const route of routes) {
      const path = route.template.replace(/\{[^}]+\}/g, (name) =>
        name.endsWith('_id}') || name.endsWith('number}') ? '1' : 'x',
      );
      expect(index.match(route.method, path)?.template, `${route.method} ${route.template}`).toBe(
        route.template,
      );
    }
  });

  describe('match', () => {
    it('returns the operation id and the decoded path parameters', () => {
      expect(index.match('post', '/repos/octo/app/issues/3/comments')).toEqual({
        template: '/repos/{owner}/{repo}/issues/{issue_number}/comments',
        method: 'POST',
        operationId: 'issues/create-comment',
        params: { owner: 'octo', repo: 'app', issue_number: '3' },
      });
    });

    it('finds nothing for a path GitHub does not have', () => {
      expect(index.match('GET', '/repos/octo/app/nonsense')).toBeUndefined();
    });

    it('finds nothing for a method the path does not take', () => {
      expect(index.match('DELETE', '/repos/octo/app/pulls')).toBeUndefined();
    });
  });

  describe('validate', () => {
    it('accepts a request that follows the description', () => {
      expect(
        check('POST', '/repos/o/r/pulls', '', { title: 't', head: 'a', base: 'main', draft: true }),
      ).toEqual([]);
      expect(check('GET', '/repos/o/r/pulls', 'state=all&head=o:a&per_page=100')).toEqual([]);
    });

    it('rejects a body property of the wrong type', () => {
      expect(check('POST', '/repos/o/r/issues/1/labels', '', { labels: 'x' })).toContain(
        'body/labels must be array',
      );
    });

    it('names a missing required body property', () => {
      expect(check('POST', '/repos/o/r/pulls', '', { title: 't', head: 'a' })).toEqual([
        'body/base is required',
      ]);
    });

    it('flags a body property the operation does not define', () => {
      expect(check('POST', '/repos/o/r/issues/1/comments', '', { body: 'x', bodyy: 'y' })).toEqual([
        "body has property 'bodyy', which is not defined",
      ]);
    });

    it('requires a body where the description does', () => {
      expect(check('POST', '/repos/o/r/issues/1/comments')).toEqual([
        'the request body is required',
      ]);
    });

    it('flags a body sent to an operation that takes none', () => {
      expect(check('GET', '/repos/o/r', '', { x: 1 })).toEqual([
        'this operation takes no request body',
      ]);
    });

    it('checks path parameters after coercing them from the URL', () => {
      expect(check('GET', '/repos/o/r/issues/abc')).toEqual([
        "path parameter 'issue_number' must be integer",
      ]);
      expect(check('GET', '/repos/o/r/issues/12')).toEqual([]);
    });

    it('lists the allowed values of an enum query parameter', () => {
      expect(check('GET', '/repos/o/r/pulls', 'state=merged')).toEqual([
        `query parameter 'state' must be equal to one of the allowed values: "open", "closed", "all"`,
      ]);
    });

    it('flags a query parameter the operation does not define', () => {
      expect(check('GET', '/repos/o/r/issues/1/comments', 'per_page=5&sort=desc')).toEqual([
        "query parameter 'sort' is not defined for this operation",
      ]);
    });

    it('accepts values in GitHub formats Ajv does not know', () => {
      expect(
        check('POST', '/repos/o/r/pulls', '', {
          title: 't',
          head: 'a',
          base: 'b',
          head_repo: 'x/y',
        }),
      ).toEqual([]);
    });

    it('checks formats it knows', () => {
      expect(check('GET', '/repos/o/r/issues/1/comments', 'since=yesterday')).toEqual([
        `query parameter 'since' must match format "date-time"`,
      ]);
    });
  });
});

describe('createOperationIndex', () => {
  it('refuses a document without paths', () => {
    expect(() => createOperationIndex({ openapi: '3.0.3' })).toThrow(
      'The OpenAPI description has no "paths" object.',
    );
  });

  it('reports an operation it does not hold', () => {
    const small = createOperationIndex({ paths: { '/a': { get: { operationId: 'a/get' } } } });
    expect(
      small.validate(
        { method: 'POST', template: '/a', operationId: 'x', params: {} },
        { query: new URLSearchParams(), body: undefined },
      ),
    ).toEqual(['the description has no operation POST /a']);
  });
});
