import { LIFECYCLE_SOURCE_ID } from '../contract/ingress-values';
import { receiverHandler } from './ingress-receiver';

/** POST /v1/lifecycle/events: the service platform's signed lifecycle feed (source service-platform). */
export const handler = receiverHandler('lifecycle', () => LIFECYCLE_SOURCE_ID);
