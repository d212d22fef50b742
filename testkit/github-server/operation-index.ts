/**
 * The port between the fake GitHub server and GitHub's OpenAPI description. The server only needs
 * "which operation is this?" and "what is wrong with this request?"; the implementation that reads
 * the description (`openapi/load-operation-index.ts`) stays out of the demo bundle.
 */

export interface OperationMatch {
  /** The OpenAPI path template, e.g. `/repos/{owner}/{repo}/issues/{issue_number}/comments`. */
  template: string;
  /** Upper case, as on the wire. */
  method: string;
  operationId: string;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

export interface RequestParts {
  query: URLSearchParams;
  /** The parsed JSON body; `undefined` when the request had none. */
  body: unknown;
}

export interface OperationIndex {
  /** The operation GitHub would route this request to; `undefined` where GitHub answers 404. */
  match(method: string, pathname: string): OperationMatch | undefined;
  /** Every way the request departs from the operation's description; empty when it conforms. */
  validate(operation: OperationMatch, request: RequestParts): string[];
  readonly operationCount: number;
}
