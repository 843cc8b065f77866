/**
 * The routes the capacity and cost benches drive, by the contract's operation ids (their function
 * entries and paths come from the contract table, so a moved handler moves here too), and the
 * requests each read route is measured with.
 */
import { DEMO_CREDENTIALS } from '../../../fixtures/demo-credentials';
import { DEMO_PROOFS } from '../../../fixtures/demo-proofs';
import { operations } from '../../../functions/contract/operations';
import type { Operation } from '../../../functions/contract/operation';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiEvent } from './functions';
import { HOT_REFERENCES, QUIET_OBJECT } from './mix';

export function operation(operationId: string): Operation & { integration: { kind: 'lambda'; entry: string; access: string } } {
  const op = operations.find((o) => o.operationId === operationId);
  if (!op || op.integration.kind !== 'lambda') throw new Error(`no Lambda operation ${operationId} in the contract`);
  return op as never;
}

/** A GET of `operationId` with its path parameters filled in. */
export function readEvent(operationId: string, pathParameters: Record<string, string> = {}, query: Record<string, string> | null = null, headers: Record<string, string> = {}): APIGatewayProxyEvent {
  const op = operation(operationId);
  const requestPath = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathParameters[name]));
  return apiEvent('GET', op.path, requestPath, { pathParameters: Object.keys(pathParameters).length ? pathParameters : null, query, headers });
}

/** The busy reference whose reads are measured: the hottest object of the mix. */
export const BUSY_REFERENCE = HOT_REFERENCES[0];

export interface ReadRoute {
  /** What the figure is called in the bench's rows. */
  name: string;
  operationId: string;
  event: () => APIGatewayProxyEvent;
}

/** The main read routes on the busiest reference (and the demo's proof, credential and ledger): what capacity measures. */
export const READ_ROUTES: ReadRoute[] = [
  { name: 'object read, default window', operationId: 'resolveObject', event: () => readEvent('resolveObject', { reference: BUSY_REFERENCE }) },
  { name: 'object read, limit=200', operationId: 'resolveObject', event: () => readEvent('resolveObject', { reference: BUSY_REFERENCE }, { limit: '200' }) },
  { name: 'commercial proof', operationId: 'getCommercialProof', event: () => readEvent('getCommercialProof', { reference: DEMO_PROOFS.current }) },
  { name: 'trust receipt page', operationId: 'getTrustReceipt', event: () => readEvent('getTrustReceipt', { reference: BUSY_REFERENCE }, null, { accept: 'text/html', 'accept-language': 'en' }) },
  { name: 'credential verify', operationId: 'verifyCredential', event: () => readEvent('verifyCredential', { claimId: DEMO_CREDENTIALS.active }) },
  { name: 'ledger', operationId: 'getLedger', event: () => readEvent('getLedger') },
];

/**
 * The main read routes as the cost bench prices them: an object and its trust receipt as most
 * references are (a short history), the busy reference's object read beside them, a commercial
 * proof, a credential verification, the ledger.
 */
export const COST_ROUTES: ReadRoute[] = [
  { name: 'object read', operationId: 'resolveObject', event: () => readEvent('resolveObject', { reference: QUIET_OBJECT }) },
  { name: 'object read, busy reference', operationId: 'resolveObject', event: () => readEvent('resolveObject', { reference: BUSY_REFERENCE }) },
  { name: 'trust receipt page', operationId: 'getTrustReceipt', event: () => readEvent('getTrustReceipt', { reference: QUIET_OBJECT }, null, { accept: 'text/html', 'accept-language': 'en' }) },
  ...READ_ROUTES.filter((r) => ['commercial proof', 'credential verify', 'ledger'].includes(r.name)),
];
