import { grantsOf, referencedIds } from '../support';
import { functionOf, ingressSecretId, json, ofType, receivers, resources } from './template';

/** lib/stack/ingress-secrets.ts: the receivers' verification keys. */

describe('ingress verification keys', () => {
  test('one secret, created as {} (every source gated until an operator sets keys), retained, read only by the receivers', () => {
    const secret = resources[ingressSecretId];
    expect(secret.Type).toBe('AWS::SecretsManager::Secret');
    expect(secret.Properties.SecretString).toBe('{}');
    expect(secret.DeletionPolicy).toBe('Retain');
    const readers = ofType('AWS::IAM::Role')
      .map(([roleId]) => roleId)
      .filter((roleId) => grantsOf(resources, roleId).some((g) => referencedIds(g.resource).includes(ingressSecretId)));
    expect(readers.sort()).toEqual(receivers.map((op) => functionOf(op.operationId).roleId).sort());
    expect(json.Outputs.IngressSecretsArn.Value).toEqual({ Ref: ingressSecretId });
  });

  test('both receivers are in the imported API as POST methods on their functions', () => {
    const [[, api]] = ofType('AWS::ApiGateway::RestApi');
    for (const op of receivers) {
      const method = api.Properties.Body.paths[op.path].post;
      expect(method['x-amazon-apigateway-integration'].type).toBe('aws_proxy');
      expect(Object.keys(method.responses)).toContain('202');
    }
    expect(receivers.map((op) => op.path).sort()).toEqual(['/v1/lifecycle/events', '/v1/webhooks/{sourceId}']);
  });
});
