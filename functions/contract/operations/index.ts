import type { Operation } from '../operation';
import { cataloguesOperations } from './catalogues';
import { coreOperations } from './core';
import { credentialsOperations } from './credentials';
import { ingressOperations } from './ingress';
import { landingOperations } from './landing';
import { ledgerLogOperations } from './ledger-log';
import { proofsOperations } from './proofs';
import { sandboxOperations } from './sandbox';
import { surfacesOperations } from './surfaces';

/**
 * The contract table: every operation the service offers, declared once. Routes (local and
 * API Gateway), the OpenAPI contract, the import document, the CDK functions and the
 * catalogue's liveState all come from this list.
 */
export const operations: readonly Operation[] = [
  ...coreOperations,
  ...proofsOperations,
  ...ledgerLogOperations,
  ...credentialsOperations,
  ...cataloguesOperations,
  ...sandboxOperations,
  ...ingressOperations,
  ...surfacesOperations,
  ...landingOperations,
];
