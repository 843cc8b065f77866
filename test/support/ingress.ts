import { DEV_INGRESS_SECRETS_FILE } from '../../lib/local/service';
import { buildEvent, deliver, devSecrets, senderOf, signedHeaders } from '../../lib/ingress/emit';

/** Signs (with the development secret of its source) and sends one canonical event to a running service. */
export async function emit(
  baseUrl: string,
  type: string,
  reference: string,
  fields: Record<string, string> = {},
  options: { id?: string; timestampSeconds?: number; at?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const { sourceId, path } = senderOf(type);
  const body = options.body ?? JSON.stringify(buildEvent(type, reference, fields, options.at));
  const headers = { ...signedHeaders(body, [devSecrets(DEV_INGRESS_SECRETS_FILE)[sourceId]], options), ...options.headers };
  return { ...(await deliver(baseUrl, path, body, headers)), sent: { body, headers, path } };
}

export const STATE_CHANGED = 'svc.living-object.state-changed.v1';
export const OBSERVED = 'svc.living-object.authority-observed.v1';
export const CREDENTIAL_CHANGED = 'svc.credential.status-changed.v1';
export const SNAPSHOT = 'svc.commercial-proof.source-snapshot.v1';

export function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string): Record<string, any> {
  expect([res.status, res.body?.code]).toEqual([status, code]);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code, service: 'public-trust-verification-service' });
  expect(typeof res.body.correlationId).toBe('string');
  expect(res.headers.get('x-correlation-id')).toBe(res.body.correlationId);
  return res.body;
}
