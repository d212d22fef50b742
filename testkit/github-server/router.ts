/**
 * Which operation a request is and which fake handles it. With an OpenAPI index, GitHub's routes
 * decide (a route GitHub lacks is missing; one it has but the fake lacks has no handler); without
 * one, only the fake's own routes exist.
 */
import { routes } from './handlers/index.js';
import type { Route } from './http.js';
import type { OperationIndex } from './operation-index.js';
import { createRouteTable } from './path-template.js';
import type { RouteTable } from './path-template.js';

export interface Routed {
  template: string;
  operationId?: string;
  params: Record<string, string>;
  /** The fake's handler; unset for a valid route the fake does not implement. */
  route?: Route;
}

export interface Router {
  /** `undefined` when the route does not exist (GitHub answers 404). */
  resolve(method: string, pathname: string): Routed | undefined;
  /** The request's contract violations; always none without an index. */
  validate(method: string, routed: Routed, query: URLSearchParams, body: unknown): string[];
  readonly validating: boolean;
}

export function createRouter(index: OperationIndex | undefined): Router {
  const handlers = new Map(routes.map((route) => [`${route.method} ${route.template}`, route]));
  const own = new Map<string, RouteTable<Route>>();
  for (const method of new Set(routes.map((route) => route.method))) {
    const entries = routes
      .filter((route) => route.method === method)
      .map((route) => [route.template, route] as const);
    own.set(method, createRouteTable(entries));
  }

  return {
    validating: index !== undefined,
    resolve(method, pathname) {
      if (index === undefined) {
        const found = own.get(method)?.match(pathname);
        return found && { template: found.template, params: found.params, route: found.value };
      }
      const operation = index.match(method, pathname);
      if (operation === undefined) return undefined;
      const route = handlers.get(`${method} ${operation.template}`);
      return {
        template: operation.template,
        operationId: operation.operationId,
        params: operation.params,
        ...(route === undefined ? {} : { route }),
      };
    },
    validate(method, routed, query, body) {
      if (index === undefined || routed.operationId === undefined) return [];
      const operation = {
        method,
        template: routed.template,
        operationId: routed.operationId,
        params: routed.params,
      };
      return index.validate(operation, { query, body });
    },
  };
}
