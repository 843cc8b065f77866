import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { kmsCheckpointSigner } from '../ledger-writer/kms-signer';
import { logger } from '../logging/logger';
import { keyList } from '#verify/checks/note';

/**
 * The stack's custom resource that learns the ledger's verifier key from the KMS key itself, at
 * deploy time (lib/stack/ledger-verifier-key.ts): KMS GetPublicKey on the ledger key, the C2SP
 * verifier key of that public half under the log's origin, checked against the keys an operator
 * pinned in context (ledgerVerifierKeys). A pinned list that does not name the key fails the
 * deployment with both keys named, before any function trusts the wrong key.
 *
 * It answers CloudFormation itself (a PUT of the outcome to the request's pre-signed ResponseURL),
 * so no provider framework and no second function is needed.
 */

interface CustomResourceEvent {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
  ResourceProperties: { KeyId?: string; Origin?: string; PinnedVerifierKeys?: string };
}

export interface VerifierKeyAttributes {
  /** The verifier key of the KMS key under the origin. */
  VerifierKey: string;
  /** What the read functions trust: the pinned list when one is given (it names VerifierKey), else VerifierKey alone. */
  TrustedVerifierKeys: string;
}

/** The verifier key of the ledger key, checked against the pinned list; throws naming what to fix. */
export async function learnVerifierKey(properties: CustomResourceEvent['ResourceProperties']): Promise<VerifierKeyAttributes> {
  const { KeyId: keyId = '', Origin: origin = '', PinnedVerifierKeys: pinned = '' } = properties;
  const signer = await kmsCheckpointSigner({ keyId, origin });
  const pinnedKeys = keyList(pinned);
  if (pinnedKeys.length > 0 && !pinnedKeys.includes(signer.verifierKey)) {
    throw new Error(
      `context ledgerVerifierKeys pins ${pinnedKeys.join(', ')}, but the ledger key ${keyId} under the origin ${origin} has the verifier key ${signer.verifierKey}: pin that key (or remove ledgerVerifierKeys), or deploy with the key and origin that were pinned`,
    );
  }
  return { VerifierKey: signer.verifierKey, TrustedVerifierKeys: pinnedKeys.length > 0 ? pinnedKeys.join(',') : signer.verifierKey };
}

async function respond(event: CustomResourceEvent, outcome: { Status: 'SUCCESS' | 'FAILED'; Reason?: string; PhysicalResourceId: string; Data?: VerifierKeyAttributes }): Promise<void> {
  const body = JSON.stringify({ ...outcome, StackId: event.StackId, RequestId: event.RequestId, LogicalResourceId: event.LogicalResourceId });
  // The pre-signed URL is signed for an empty content type.
  const response = await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' } });
  if (!response.ok) throw new Error(`CloudFormation's response URL answered ${response.status}`);
}

async function answer(event: CustomResourceEvent): Promise<void> {
  // Deleting it removes nothing: the key is the stack's (and retained), the attribute is only read.
  if (event.RequestType === 'Delete') {
    await respond(event, { Status: 'SUCCESS', PhysicalResourceId: event.PhysicalResourceId ?? event.LogicalResourceId });
    return;
  }
  try {
    const data = await learnVerifierKey(event.ResourceProperties);
    logger.info('ledger verifier key learned', { verifierKey: data.VerifierKey, pinned: data.TrustedVerifierKeys !== data.VerifierKey });
    // The verifier key is the physical id: a new key or origin replaces the resource, and with it every function's trusted key.
    await respond(event, { Status: 'SUCCESS', PhysicalResourceId: data.VerifierKey, Data: data });
  } catch (error) {
    const reason = (error as Error).message;
    logger.error('the ledger verifier key could not be learned', { reason });
    await respond(event, { Status: 'FAILED', Reason: reason.slice(0, 3000), PhysicalResourceId: event.PhysicalResourceId ?? `failed-${event.RequestId}` });
  }
}

export const handler = middy(answer).use(injectLambdaContext(logger));
