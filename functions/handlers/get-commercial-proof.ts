import { inspectIntegrity } from '../domain/evidence';
import { COMMERCIAL_PROOF_KIND, commercialProofEvidence, publicProof, type ProofWindowEntry } from '../domain/proofs';
import { httpHandler } from '../http/boundary';
import { parseReference, referenceNotFound } from '../http/params';
import { Problem } from '../http/problem';
import { environmentRecords } from '../store/environment';

const KIND_NAMES: Record<string, string> = { OBJECT: 'a living object', CREDENTIAL: 'a credential', STATUS_LIST: 'a credential status list' };

export const handler = httpHandler(async (request) => {
  const reference = parseReference(request.pathParameters.reference);
  const now = new Date().toISOString();
  const records = environmentRecords();
  const window = await records.readWindow<ProofWindowEntry['entry'], ProofWindowEntry['view'], ProofWindowEntry['head']>(reference, now, 1);
  if (!window.exists) throw await referenceNotFound(reference, `No record is held under reference '${reference}'.`, async (upper) => (await records.readWindow(upper, now, 1)).exists);
  if (window.kind !== COMMERCIAL_PROOF_KIND) {
    const what = (window.kind && KIND_NAMES[window.kind]) ?? 'another kind of record';
    throw new Problem('NOT_A_COMMERCIAL_PROOF', `Reference '${reference}' holds ${what}, not a commercial proof.`);
  }
  const newest = window.entries[0] as ProofWindowEntry | undefined;
  if (!newest) throw new Problem('NOT_FOUND', `The commercial proof '${reference}' is not issued yet.`);
  // Verify exactly what the response shows, so anyone re-hashing `proof` gets the service's answer.
  const integrity = inspectIntegrity({ ...newest.head, content: publicProof(newest.head.content) });
  return { status: 200, body: commercialProofEvidence({ newest, integrity, now, baseUrl: request.baseUrl }) };
});
