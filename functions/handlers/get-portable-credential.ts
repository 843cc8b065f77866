import { CREDENTIAL_KIND, type CredentialWindowEntry } from '../domain/credentials/model';
import { portableCredential } from '../domain/credentials/projection';
import { httpHandler } from '../http/boundary';
import { getPortableCredentialCaching as caching } from '../generated/caching';
import { getPortableCredentialParams } from '../generated/params';
import { checkParam, referenceNotFound } from '../http/params';
import { environmentRecords } from '../store/environment';

/** The credential's current version as W3C VC 2.0 JSON; its status lives in the lists it points at. */
export const handler = httpHandler(async (request) => {
  const credentialId = checkParam(getPortableCredentialParams.claimId, 'claimId', request.pathParameters.claimId, 'INVALID_CLAIM_ID');
  const now = new Date().toISOString();
  const records = environmentRecords();
  const window = await records.readWindow<CredentialWindowEntry['entry'], CredentialWindowEntry['view'], CredentialWindowEntry['head']>(credentialId, now, 1);
  const newest = window.entries[0] as CredentialWindowEntry | undefined;
  if (!window.exists || window.kind !== CREDENTIAL_KIND || !newest) {
    throw await referenceNotFound(credentialId, `No credential is held under '${credentialId}'.`, async (upper) => (await records.readWindow(upper, now, 1)).kind === CREDENTIAL_KIND);
  }
  return { status: 200, body: portableCredential(newest.head.content, request.baseUrl) };
}, { caching });
