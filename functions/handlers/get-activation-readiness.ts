import { buildActivationReadiness } from '../domain/surfaces/readiness';
import { httpHandler } from '../http/boundary';
import { meaningOf } from '../http/meaning';
import { getActivationReadinessCaching as caching } from '../generated/caching';
import { readinessLinks } from './json-responses';

/** Inspects the identity and wallet-protocol settings as they are now (never stored: the `inspection` class); reports presence and form, never values. */
export const handler = httpHandler(async (request) => {
  const body = buildActivationReadiness(process.env, new Date().toISOString(), readinessLinks(request.baseUrl));
  // Never stored, but revalidated: a weak ETag over what it says apart from when it was checked.
  return { status: 200, body, revalidate: { weakOver: meaningOf(body) } };
}, { caching });
