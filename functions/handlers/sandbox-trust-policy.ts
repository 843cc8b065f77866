import { parseJsonBody } from '../domain/json-input';
import { evaluateTrustPolicy } from '../domain/sandbox/trust-policy';
import { trustPolicyRequest } from '../generated/bodies';
import { sandboxHandler } from './sandbox-request';

/** POST /developers/sandbox/trust-policy (SHADOW). */
export const handler = sandboxHandler((request) => evaluateTrustPolicy(parseJsonBody(request.body, trustPolicyRequest, { optional: false })));
