import { buildActivationReadiness } from '../domain/surfaces/readiness';
import { httpHandler } from '../http/boundary';
import { getActivationReadinessCaching as caching } from '../generated/caching';
import { readinessLinks } from './json-responses';

/** Inspects the identity and wallet-protocol settings as they are now (never stored: the `inspection` class); reports presence and form, never values. */
export const handler = httpHandler(async (request) => ({
  status: 200,
  body: buildActivationReadiness(process.env, new Date().toISOString(), readinessLinks(request.baseUrl)),
}), { caching });
