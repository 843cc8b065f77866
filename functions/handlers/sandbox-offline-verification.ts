import { parseJsonBody } from '../domain/json-input';
import { verifyOfflineBundle } from '../domain/sandbox/offline';
import { offlineVerificationRequest } from '../generated/bodies';
import { sandboxHandler } from './sandbox-request';

/** POST /developers/sandbox/offline-verification (SHADOW). */
export const handler = sandboxHandler((request) => verifyOfflineBundle(parseJsonBody(request.body, offlineVerificationRequest, { optional: false })));
