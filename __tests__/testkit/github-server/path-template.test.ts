import { describe, expect, it } from 'vitest';
import { createRouteTable } from '../../../testkit/github-server/path-template.js';

const table = createRouteTable(
  [
    '/repos/{owner}/{repo}',
    '/repos/{owner}/{repo}/issues/{issue_number}',
    '/repos/{owner}/{repo}/issues/comments',
    '/repos/{owner}/{repo}/issues/comments/{comment_id}',
    '/repos/{owner}/{repo}/git/ref/{ref}',
    '/repos/{owner}/{repo}/compare/{base}...{head}',
  ].map((template) => [template, template] as const),
);

describe('createRouteTable', () => {
  it('matches a template and returns its parameters', () => {
    expect(table.match('/repos/octo/app/issues/12')).toEqual({
      template: '/repos/{owner}/{repo}/issues/{issue_number}',
      value: '/repos/{owner}/{repo}/issues/{issue_number}',
      params: { owner: 'octo', repo: 'app', issue_number: '12' },
    });
  });

  it('prefers a literal segment over a parameter in the same place', () => {
    expect(table.match('/repos/octo/app/issues/comments')?.template).toBe(
      '/repos/{owner}/{repo}/issues/comments',
    );
    expect(table.match('/repos/octo/app/issues/comments/7')?.params).toEqual({
      owner: 'octo',
      repo: 'app',
      comment_id: '7',
    });
  });

  it('decodes percent-encoded parameters, as Octokit encodes a slash in a ref', () => {
    expect(table.match('/repos/octo/app/git/ref/heads%2Ffeature%2Fx')?.params['ref']).toBe(
      'heads/feature/x',
    );
  });

  it('lets a trailing ref span segments when it is sent unencoded', () => {
    expect(table.match('/repos/octo/app/git/ref/heads/feature/x')?.params['ref']).toBe(
      'heads/feature/x',
    );
  });

  it('does not let other parameters span segments', () => {
    expect(table.match('/repos/octo/app/pulls')).toBeUndefined();
    expect(table.match('/repos/octo/app/issues/1/extra')).toBeUndefined();
  });

  it('matches parameters that share a segment with literals', () => {
    expect(table.match('/repos/octo/app/compare/main...feature')?.params).toEqual({
      owner: 'octo',
      repo: 'app',
      base: 'main',
      head: 'feature',
    });
  });

  it('ignores a trailing slash', () => {
    expect(table.match('/repos/octo/app/')?.template).toBe('/repos/{owner}/{repo}');
  });

  describe('when nothing matches', () => {
    it('returns undefined for an unknown path', () => {
      expect(table.match('/users/octo')).toBeUndefined();
    });

    it('returns undefined for a malformed percent-encoding', () => {
      expect(table.match('/repos/octo/app%E0%A4%A')).toBeUndefined();
    });
  });
});
