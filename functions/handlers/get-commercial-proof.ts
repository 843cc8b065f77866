import { inspectIntegrity } from '../domain/evidence';
import { COMMERCIAL_PROOF_KIND, commercialProofEvidence, publicProof, type ProofWindowEntry } from '../domain/proofs';
import { httpHandler } from '../http/boundary';
import { getCommercialProofCaching as caching } from '../generated/caching';
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
  const body = commercialProofEvidence({ newest, integrity, now, baseUrl: request.baseUrl });
  // The evaluation instant and the lag counted from it change with every request: the ETag is weak,
  // over everything else (the proof, its source's state and freshness, the evidence and its verdict).
  const { evaluatedAt: _evaluatedAt, lagSeconds: _lagSeconds, ...synchronization } = body.verification.synchronization;
  return { status: 200, body, revalidate: { weakOver: { ...body, verification: { ...body.verification, synchronization } } } };
}, { caching });
