import { CREDENTIAL_KIND, type CredentialWindowEntry } from '../domain/credentials/model';
import { portableCredential } from '../domain/credentials/projection';
import { httpHandler } from '../http/boundary';
import { getPortableCredentialCaching as caching } from '../generated/caching';
import { getPortableCredentialParams } from '../generated/params';
import { checkParam } from '../http/params';
import { Problem } from '../http/problem';
import { readRecordWindow } from '../store/records';

/** The credential's current version as W3C VC 2.0 JSON; its status lives in the lists it points at. */
export const handler = httpHandler(async (request) => {
  const credentialId = checkParam(getPortableCredentialParams.claimId, 'claimId', request.pathParameters.claimId, 'INVALID_CLAIM_ID');
  const window = await readRecordWindow<CredentialWindowEntry['entry'], CredentialWindowEntry['view'], CredentialWindowEntry['head']>(credentialId, new Date().toISOString(), 1);
  const newest = window.entries[0] as CredentialWindowEntry | undefined;
  if (!window.exists || window.kind !== CREDENTIAL_KIND || !newest) {
    throw new Problem('NOT_FOUND', `No credential is held under '${credentialId}'.`);
  }
  return { status: 200, body: portableCredential(newest.head.content, request.baseUrl) };
}, { caching });
