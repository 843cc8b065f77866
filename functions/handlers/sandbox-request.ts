import { JsonInputError } from '../domain/json-input';
import { httpHandler } from '../http/boundary';
import type { HttpRequest } from '../http/request';
import { Problem } from '../http/problem';

/**
 * The shared shape of a sandbox operation: a pure evaluation of the request, answered 200, with
 * every refused input as a 422 problem naming the field (`field`, and every issue in `errors`
 * with an RFC 6901 pointer); a body not labelled JSON is a 415. Sandbox functions import nothing
 * that reaches a store.
 */
export function sandboxHandler(evaluate: (request: HttpRequest) => unknown) {
  return httpHandler(async (request) => {
    try {
      return { status: 200, body: evaluate(request) };
    } catch (error) {
      if (error instanceof JsonInputError) {
        const [first] = error.issues;
        const detail = first.field === '(body)' ? `The request body ${first.detail}.` : `Field '${first.field}' ${first.detail}.`;
        throw new Problem('INVALID_REQUEST', detail, { field: first.field, errors: error.issues });
      }
      throw error;
    }
  }, { jsonBody: true });
}
