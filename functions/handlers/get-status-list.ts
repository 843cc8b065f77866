import { STATUS_LIST_KIND, statusListReference, type StatusListWindowEntry } from '../domain/credentials/model';
import { statusListCredential } from '../domain/credentials/projection';
import { httpHandler } from '../http/boundary';
import { getStatusListCaching as caching } from '../generated/caching';
import { getStatusListParams } from '../generated/params';
import { checkParam } from '../http/params';
import { Problem } from '../http/problem';
import { canonicalInstant } from '../store/layout';
import { environmentRecords } from '../store/environment';

/**
 * Bitstring Status List v1.0, 3.5: a failed retrieval reported as problem details carries this
 * type URL; the service's own `code` stays alongside it.
 */
const STATUS_RETRIEVAL_ERROR = 'https://www.w3.org/ns/credentials/status-list#STATUS_RETRIEVAL_ERROR';

export const handler = httpHandler(async (request) => {
  const listId = checkParam(getStatusListParams.listId, 'listId', request.pathParameters.listId);
  const now = new Date().toISOString();
  let at = now;
  if (request.query.timestamp !== undefined) {
    at = canonicalInstant(checkParam(getStatusListParams.timestamp, 'timestamp', request.query.timestamp));
    if (at > now) {
      throw new Problem('INVALID_PARAMETER', `Parameter 'timestamp' is later than the service clock (${now}); the list's future is not known.`, { parameter: 'timestamp', type: STATUS_RETRIEVAL_ERROR });
    }
  }
  const window = await environmentRecords().readWindow<StatusListWindowEntry['entry'], StatusListWindowEntry['view'], StatusListWindowEntry['head']>(statusListReference(listId), at, 1);
  if (!window.exists || window.kind !== STATUS_LIST_KIND) {
    throw new Problem('NOT_FOUND', `No status list is published under '${listId}'.`, { type: STATUS_RETRIEVAL_ERROR });
  }
  const newest = window.entries[0] as StatusListWindowEntry | undefined;
  if (!newest) {
    throw new Problem('NOT_FOUND', `Status list '${listId}' had no version published at or before ${at}.`, { type: STATUS_RETRIEVAL_ERROR });
  }
  // The list now is kept as long as its ttl says (the status-list class); a version of a past instant is a past view.
  return { status: 200, body: statusListCredential(newest.head, request.baseUrl), ...(at < now ? { cacheClass: 'past' as const } : {}) };
}, { caching });
