import { assessIntegrity } from '../domain/evidence';
import { CREDENTIAL_KIND, type CredentialWindowEntry } from '../domain/credentials/model';
import { verifyCredential } from '../domain/credentials/verification';
import { httpHandler } from '../http/boundary';
import { verifyCredentialCaching as caching } from '../generated/caching';
import { verifyCredentialParams } from '../generated/params';
import { checkParam, referenceNotFound } from '../http/params';
import { environmentRecords } from '../store/environment';

/**
 * GATED_BY_PERSISTENCE: without a configured store, or when it does not answer, the read throws
 * a 503 problem; there is no cached or guessed answer.
 */
export const handler = httpHandler(async (request) => {
  const credentialId = checkParam(verifyCredentialParams.claimId, 'claimId', request.pathParameters.claimId, 'INVALID_CLAIM_ID');
  const evaluatedAt = new Date().toISOString();
  // The newest entry carries the cumulative view (status, last confirmation): one entry is enough.
  const records = environmentRecords();
  const window = await records.readWindow<CredentialWindowEntry['entry'], CredentialWindowEntry['view'], CredentialWindowEntry['head']>(credentialId, evaluatedAt, 1);
  const newest = window.entries[0] as CredentialWindowEntry | undefined;
  if (!window.exists || window.kind !== CREDENTIAL_KIND || !newest) {
    throw await referenceNotFound(credentialId, `No credential is held under '${credentialId}'.`, async (upper) => (await records.readWindow(upper, evaluatedAt, 1)).kind === CREDENTIAL_KIND);
  }
  const body = verifyCredential({ newest, evaluatedAt, integrity: assessIntegrity(newest.head, newest.headText), baseUrl: request.baseUrl });
  // The evaluation instant, and the age and wording counted from it, change with every request: the
  // ETag is weak, over everything else (the checks and their outcomes, status, freshness, evidence).
  const { evaluatedAt: _evaluatedAt, summary: _summary, statusFreshness, ...rest } = body;
  const { ageSeconds: _ageSeconds, ...freshness } = statusFreshness;
  return { status: 200, body, revalidate: { weakOver: { ...rest, statusFreshness: freshness } } };
}, { caching });
