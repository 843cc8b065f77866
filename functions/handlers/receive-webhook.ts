import { receiveSourceWebhookParams } from '../generated/params';
import { checkParam } from '../http/params';
import { receiverHandler } from './ingress-receiver';

/** POST /v1/webhooks/{sourceId}: signed webhooks from external sources (externally gated per source). */
export const handler = receiverHandler('webhook', (request) => checkParam(receiveSourceWebhookParams.sourceId, 'sourceId', request.pathParameters.sourceId));
