import { encodeBase64 } from '#verify/checks/encoding';
import { consistencyProofFromTiles, MissingTileError, tilesForConsistency } from '../domain/ledger/tile-proofs';
import { getLedgerConsistencyParams } from '../generated/params';
import { httpHandler } from '../http/boundary';
import { checkParam } from '../http/params';
import { Problem } from '../http/problem';
import { StoreUnavailable } from '../store/errors';
import { ledgerTileSk, readLedgerTiles } from '../store/ledger';

/**
 * GET /v1/ledger/consistency?from=&to=: PROOF(from, D[to]) of RFC 9162, from the published head
 * and the few hash tiles the proof is made of (functions/domain/ledger/tile-proofs.ts), read
 * together in one request whatever the log's size. The log is append-only, so the proof between
 * two published sizes never changes and may be cached for a day.
 */
export const handler = httpHandler(async (request) => {
  const from = checkParam(getLedgerConsistencyParams.from, 'from', request.query.from);
  const to = checkParam(getLedgerConsistencyParams.to, 'to', request.query.to);
  if (from > to) {
    throw new Problem('INVALID_PARAMETER', `Parameter 'from' is invalid: ${from} is larger than to (${to}); a proof goes from an earlier size to a later one.`, {
      parameter: 'from',
    });
  }
  const { head, tiles } = await readLedgerTiles(tilesForConsistency(from, to));
  const size = head?.treeSize ?? 0;
  if (to > size) {
    throw new Problem('INVALID_PARAMETER', `Parameter 'to' is invalid: the log holds ${size} entries, so no tree of size ${to} exists yet.`, { parameter: 'to' });
  }
  let proof: Buffer[];
  try {
    proof = consistencyProofFromTiles(from, to, (level, index) => tiles.get(ledgerTileSk(level, index)));
  } catch (error) {
    // The head says these entries are published; a tile that is missing or short is a replica that has not caught up.
    if (error instanceof MissingTileError) throw new StoreUnavailable(error.message);
    throw error;
  }
  return { status: 200, body: { from, to, proof: proof.map(encodeBase64) }, headers: { 'cache-control': 'public, max-age=86400' } };
});
