import { buildActivationReadiness } from '../domain/surfaces/readiness';
import { httpHandler } from '../http/boundary';
import { INSPECTION_HEADERS, readinessLinks } from './json-responses';

/** Inspects the identity and wallet-protocol settings as they are now; reports presence and form, never values. */
export const handler = httpHandler(async (request) => ({
  status: 200,
  headers: INSPECTION_HEADERS,
  body: buildActivationReadiness(process.env, new Date().toISOString(), readinessLinks(request.baseUrl)),
}));
