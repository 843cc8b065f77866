import { TRUST_CONTEXT_PATH } from '../credential-context';
import { defineOperations } from '../operation';
import { documentOperation } from './document';
import {
  BitstringStatusListCredential,
  ClaimId,
  CredentialVerification,
  PortableCredential,
  StatusListId,
  StatusListTimestamp,
  TrustContext,
} from '../schemas/credentials';

const TAG = 'Credentials';

export const credentialsOperations = defineOperations([
  {
    operationId: 'verifyCredential',
    method: 'GET',
    path: '/v1/credentials/verify/{claimId}',
    tag: TAG,
    summary: 'Public verification state of a credential: one result per check, the issuer identifier and the validity window',
    description:
      'Checks integrity (ledger evidence for the version shown), the validity window and the status set by the issuer, each ' +
      'with an outcome and a reason. `verified` is true only when all three pass. The claim identifier is also called ' +
      'credentialId. Fails closed: without a configured or answering store the answer is 503, never a guess.',
    liveState: 'GATED_BY_PERSISTENCE',
    pathParams: { claimId: ClaimId },
    response: { schema: CredentialVerification },
    errors: [400, 404, 503],
    caching: ['current'],
    integration: { kind: 'lambda', entry: 'functions/handlers/verify-credential.ts', access: 'table-read' },
  },
  {
    operationId: 'getPortableCredential',
    method: 'GET',
    path: '/v1/portable-credentials/{claimId}/vc.json',
    tag: TAG,
    summary: 'An existing credential projected into W3C Verifiable Credentials 2.0 JSON (unsigned)',
    description:
      'Public claims only (no subject identifier, no personal data). credentialStatus holds BitstringStatusListEntry ' +
      'objects pointing at the published status lists. The document carries no proof: this service does not sign.',
    liveState: 'READY',
    pathParams: { claimId: ClaimId },
    response: { schema: PortableCredential },
    errors: [400, 404, 503],
    caching: ['current'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-portable-credential.ts', access: 'table-read' },
  },
  {
    operationId: 'getStatusList',
    method: 'GET',
    path: '/v1/status-lists/{listId}',
    tag: TAG,
    summary: 'A published W3C Bitstring Status List (revocation or suspension), now or as it stood at ?timestamp=',
    description:
      'BitstringStatusListCredential whose encodedList is the GZIP-compressed, multibase base64url bitstring of 131,072 ' +
      'entries. A failed retrieval carries the type https://www.w3.org/ns/credentials/status-list#STATUS_RETRIEVAL_ERROR.',
    liveState: 'GATED_BY_PERSISTENCE',
    pathParams: { listId: StatusListId },
    queryParams: { timestamp: StatusListTimestamp },
    response: { schema: BitstringStatusListCredential },
    errors: [400, 404, 503],
    caching: ['status-list', 'past'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-status-list.ts', access: 'table-read' },
  },
  {
    ...documentOperation(TAG, 'getTrustContext', TRUST_CONTEXT_PATH, "The service's JSON-LD context, version 1: the terms it adds to credential documents", TrustContext),
    description:
      'Status list credentials name it after the VC 2.0 context; it defines `logged` (the version as the ledger logged it, with its ' +
      'evidence) as a JSON literal. A published version never changes; processors may bundle it instead of fetching it.',
  },
]);
