import { NOT_YET_OPEN, startGatewayServer } from '../../lib/assembly/gateway/gateway-server';
import type { GatewayBackends } from '../../lib/assembly/gateway/integrations';

/**
 * The local stage answers nothing about data before the deployment is complete: `npm start --
 * --assembly DIR --demo` opens it only after every provisioner (the demo's load included) is done,
 * so /health is never ready, and no read a 404, before the data is there.
 */
test('before it is opened every request is a 503 problem with Retry-After; after, the stage routes', async () => {
  const gateway = await startGatewayServer({ body: { openapi: '3.0.1', paths: {} }, stageName: 'live', apiId: 'api', account: '123456789012', region: 'eu-central-1' }, {} as GatewayBackends);
  try {
    const early = await fetch(`${gateway.invokeUrl}/health`);
    expect([early.status, early.headers.get('content-type'), early.headers.get('retry-after'), await early.json()]).toEqual([503, 'application/problem+json', '1', NOT_YET_OPEN]);
    gateway.open();
    const later = await fetch(`${gateway.invokeUrl}/health`);
    // No such route in this document: API Gateway's own answer, no longer the 503.
    expect(later.status).not.toBe(503);
  } finally {
    await gateway.close();
  }
});
