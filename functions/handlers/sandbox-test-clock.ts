import { testClock } from '../domain/sandbox/clock';
import { parseJsonBody } from '../domain/json-input';
import { testClockRequest } from '../generated/bodies';
import { sandboxHandler } from './sandbox-request';

/** POST /developers/sandbox/test-clock: the body is optional (empty = {}). */
export const handler = sandboxHandler((request) => testClock(parseJsonBody(request.body, testClockRequest, { optional: true })));
