import { LEDGER_LOG } from '../contract/site-paths';
import { ledgerDescription } from '../domain/ledger/description';
import { trustedLedgerKeys } from '../domain/evidence';
import { httpHandler } from '../http/boundary';
import { getLedgerCaching as caching } from '../generated/caching';
import { environmentPublishedLedger } from '../store/environment';

/** The log's public identity: verifier keys from configuration, latest checkpoint from one GetItem (one more for each log a key change retired). */
export const handler = httpHandler(async (request) => {
  const head = await environmentPublishedLedger().head();
  const chain = head ? [...(head.predecessors ?? []), head] : [];
  return { status: 200, body: ledgerDescription(trustedLedgerKeys(), head?.checkpoint ?? null, `${request.baseUrl}${LEDGER_LOG.path}`, chain) };
}, { caching });
