import { consistencyProof } from '../domain/ledger/consistency';
import { encodeBase64 } from '../domain/ledger/encoding';
import { getLedgerConsistencyParams } from '../generated/params';
import { httpHandler } from '../http/boundary';
import { checkParam } from '../http/params';
import { Problem } from '../http/problem';
import { StoreUnavailable } from '../store/errors';
import { readLedgerPrefix } from '../store/ledger';

/**
 * GET /v1/ledger/consistency?from=&to=: PROOF(from, D[to]) of RFC 9162, from the published head
 * and the leaf hashes of the first `to` entries (read together). The log is append-only, so the
 * proof between two published sizes never changes and may be cached for a day.
 */
export const handler = httpHandler(async (request) => {
  const from = checkParam(getLedgerConsistencyParams.from, 'from', request.query.from);
  const to = checkParam(getLedgerConsistencyParams.to, 'to', request.query.to);
  if (from > to) {
    throw new Problem('INVALID_PARAMETER', `Parameter 'from' is invalid: ${from} is larger than to (${to}); a proof goes from an earlier size to a later one.`, {
      parameter: 'from',
    });
  }
  const { head, leaves } = await readLedgerPrefix(to);
  const size = head?.treeSize ?? 0;
  if (to > size) {
    throw new Problem('INVALID_PARAMETER', `Parameter 'to' is invalid: the log holds ${size} entries, so no tree of size ${to} exists yet.`, { parameter: 'to' });
  }
  // The head says these leaves are published; a shorter read is a replica that has not caught up.
  if (leaves.length < to) throw new StoreUnavailable(`read ${leaves.length} of ${to} published leaves`);
  return {
    status: 200,
    body: { from, to, proof: consistencyProof(from, to, leaves).map(encodeBase64) },
    headers: { 'cache-control': 'public, max-age=86400' },
  };
});
