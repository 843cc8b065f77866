import { operations } from '../../functions/contract/operations';
import { createApp } from '../../lib/stack/app';
import { lambdaOperations } from '../../lib/stack/operation-functions';
import { routeClassOf } from '../../lib/stack/route-classes';
import { DEFAULT_SETTINGS, THROTTLE_CLASSES } from '../../lib/stack/settings';
import { fixtureSite, logicalIdOf, SKIP_BUNDLING, synthesize, type CfnResourceJson } from './support';

/**
 * Capacity per route: the stage's default throttle stays the safety net, every method of a route
 * class has a throttle of its own, and the receivers keep concurrency no read can take.
 */

const { stack, json } = synthesize();
const stageOf = (resources: Record<string, CfnResourceJson>) => Object.values(resources).find((r) => r.Type === 'AWS::ApiGateway::Stage')!;
const settingsOf = (resources: Record<string, CfnResourceJson>) =>
  new Map(
    (stageOf(resources).Properties.MethodSettings as Array<{ ResourcePath: string; HttpMethod: string; ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>).map((m) => [
      `${m.HttpMethod} ${m.ResourcePath}`,
      m,
    ]),
  );
/**
 * A method setting's ResourcePath as the Stage resource documents it: `/` and the resource path
 * with its `/` written `~1` (`/~1v1~1ledger`); the root resource is `/` alone.
 */
const resourcePath = (path: string) => (path === '/' ? '/' : `/${path.replace(/\//g, '~1')}`);
const gatewayPathOf = (op: (typeof operations)[number]) => op.path.replace(/\{(\w+)\}/g, (w, name: string) => (op.multiSegmentParams?.includes(name) ? `{${name}+}` : w));

describe('method throttles by route class', () => {
  const methods = settingsOf(json.Resources);

  test('the stage default stays for everything no class covers', () => {
    expect(methods.get('* /*')).toMatchObject({ ThrottlingRateLimit: DEFAULT_SETTINGS.throttleRateLimit, ThrottlingBurstLimit: DEFAULT_SETTINGS.throttleBurstLimit });
  });

  test('every method of every route (HEAD beside each GET) has its class\'s rate and burst, and the stage\'s logging', () => {
    let count = 0;
    for (const op of operations) {
      const throttle = DEFAULT_SETTINGS.routeThrottles[routeClassOf(op).throttle];
      for (const method of op.method === 'GET' ? ['GET', 'HEAD'] : [op.method]) {
        const setting = methods.get(`${method} ${resourcePath(gatewayPathOf(op))}`);
        expect([op.operationId, method, setting?.ThrottlingRateLimit, setting?.ThrottlingBurstLimit]).toEqual([op.operationId, method, throttle.rateLimit, throttle.burstLimit]);
        // A method's own setting replaces the stage's: errors are still logged, bodies still not.
        expect(setting).toMatchObject({ LoggingLevel: 'ERROR', DataTraceEnabled: false, MetricsEnabled: false });
        count++;
      }
    }
    // Nothing else: the stage default and one setting per method of the table.
    expect(methods.size).toBe(count + 1);
  });

  test('every method the import document declares, but preflights and the 405 catch-all, is classed', () => {
    const body = Object.values(json.Resources).find((r) => r.Type === 'AWS::ApiGateway::RestApi')!.Properties.Body as { paths: Record<string, Record<string, unknown>> };
    for (const [path, item] of Object.entries(body.paths)) {
      for (const method of Object.keys(item).filter((m) => !['options', 'x-amazon-apigateway-any-method', 'parameters'].includes(m))) {
        expect([path, method, methods.has(`${method.toUpperCase()} ${resourcePath(path)}`)]).toEqual([path, method, true]);
      }
    }
  });

  test('the receivers and the sandbox have their own figures, below the reads\'', () => {
    const { read, sandbox, receiver } = DEFAULT_SETTINGS.routeThrottles;
    expect(methods.get(`POST ${resourcePath('/v1/lifecycle/events')}`)?.ThrottlingRateLimit).toBe(receiver.rateLimit);
    expect(methods.get(`POST ${resourcePath('/developers/sandbox/test-clock')}`)?.ThrottlingRateLimit).toBe(sandbox.rateLimit);
    expect(methods.get(`GET ${resourcePath('/v1/objects/{reference}')}`)?.ThrottlingRateLimit).toBe(read.rateLimit);
    expect(sandbox.rateLimit).toBeLessThan(receiver.rateLimit);
    expect(receiver.rateLimit).toBeLessThan(read.rateLimit);
  });

  test('context sets each class\'s rate and burst (and the receivers\' reserved concurrency: 0 reserves none)', () => {
    const custom = synthesize({
      readRateLimit: '300',
      readBurstLimit: '600',
      sandboxRateLimit: 5,
      sandboxBurstLimit: 10,
      receiverRateLimit: '40',
      receiverBurstLimit: '80',
      receiverReservedConcurrency: 0,
    });
    const m = settingsOf(custom.json.Resources);
    expect(m.get(`GET ${resourcePath('/v1/objects/{reference}')}`)).toMatchObject({ ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 });
    expect(m.get(`HEAD ${resourcePath('/ledger/tile/{tilePath+}')}`)).toMatchObject({ ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 });
    expect(m.get(`POST ${resourcePath('/developers/sandbox/trust-policy')}`)).toMatchObject({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
    expect(m.get(`POST ${resourcePath('/v1/webhooks/{sourceId}')}`)).toMatchObject({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
    for (const id of ['receiveLifecycleEvent', 'receiveSourceWebhook']) {
      expect(custom.json.Resources[logicalIdOf(custom.stack, custom.stack.functions.byOperationId.get(id)!)].Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
    for (const name of THROTTLE_CLASSES) {
      expect(() => createApp({ context: { ...SKIP_BUNDLING, [`${name}RateLimit`]: '0' } }, { siteDir: fixtureSite() })).toThrow(`${name}RateLimit`);
    }
  });
});

describe('reserved concurrency', () => {
  const functionOf = (resources: Record<string, CfnResourceJson>, s: typeof stack, operationId: string) => resources[logicalIdOf(s, s.functions.byOperationId.get(operationId)!)];

  test('each receiver keeps its own; no read function reserves any; the sequencer keeps its single run', () => {
    for (const op of lambdaOperations(operations)) {
      const reserved = functionOf(json.Resources, stack, op.operationId).Properties.ReservedConcurrentExecutions;
      expect([op.operationId, reserved]).toEqual([op.operationId, op.integration.access === 'ingress-write' ? DEFAULT_SETTINGS.receiverReservedConcurrency : undefined]);
    }
    expect(json.Resources[logicalIdOf(stack, stack.sequencer.function)].Properties.ReservedConcurrentExecutions).toBe(1);
  });

  test('a negative or fractional figure stops the synth', () => {
    for (const bad of ['-1', '2.5', '']) {
      expect(() => createApp({ context: { ...SKIP_BUNDLING, receiverReservedConcurrency: bad } }, { siteDir: fixtureSite() })).toThrow('receiverReservedConcurrency');
    }
  });
});
