import { defineOperations } from '../operation';
import { Reference } from '../schemas/common';
import { LedgerConsistency, LedgerDescription, LedgerTreeSize } from '../schemas/ledger';
import { CommercialProofEvidence } from '../schemas/proofs';

export const proofsOperations = defineOperations([
  {
    operationId: 'getCommercialProof',
    method: 'GET',
    path: '/v1/commercial-proofs/{reference}',
    tag: 'Trust and verification',
    summary: 'Commercial proof evidence: the proof, the current lifecycle of its source, and ledger evidence (integrity only)',
    description:
      'proofVerified is true only when the ledger evidence verifies against the proof shown (canonical hash, inclusion proof, ' +
      'checkpoint signature by the key published at /v1/ledger). 409 when the reference holds another kind of record.',
    liveState: 'LIVE',
    pathParams: { reference: Reference },
    response: { schema: CommercialProofEvidence },
    errors: [400, 404, 409, 503],
    caching: ['current'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-commercial-proof.ts', access: 'table-read' },
  },
  {
    operationId: 'getLedger',
    method: 'GET',
    path: '/v1/ledger',
    tag: 'Trust and verification',
    summary: "The integrity ledger: origin, verifier key and latest signed checkpoint",
    description:
      'Everything needed to verify ledger evidence offline: the C2SP verifier key of the log (configured by the deployment, ' +
      'never read from the store) and the latest checkpoint. Evidence proves integrity only, never authority.',
    liveState: 'LIVE',
    response: { schema: LedgerDescription },
    errors: [503],
    caching: ['checkpoint'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-ledger.ts', access: 'table-read' },
  },
  {
    operationId: 'getLedgerConsistency',
    method: 'GET',
    path: '/v1/ledger/consistency',
    tag: 'Trust and verification',
    summary: 'A consistency proof between two tree sizes of the ledger: the log only grew',
    description:
      'RFC 9162 consistency proof from the tree of size `from` to the tree of size `to` (1 <= from <= to <= current size). ' +
      'A client that kept a checkpoint checks the proof against its root and the root of a later checkpoint; ' +
      'the service is not trusted for either root. The answer is computed from the leaf hashes, so its cost grows with `to`.',
    liveState: 'LIVE',
    queryParams: { from: LedgerTreeSize, to: LedgerTreeSize },
    requiredQueryParams: ['from', 'to'],
    response: { schema: LedgerConsistency },
    errors: [400, 503],
    caching: ['settled'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-ledger-consistency.ts', access: 'table-read' },
  },
]);
