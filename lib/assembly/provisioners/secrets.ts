import { resourcesOfType } from '../cloud-assembly';
import type { Provisioner } from './provisioner';

/**
 * AWS::SecretsManager::Secret: each secret with its SecretString, or a generated value as
 * GenerateSecretString would give (the ingress secret's sources are activated by --demo or the
 * operator, never by this value).
 */
export const secrets: Provisioner = {
  types: ['AWS::SecretsManager::Secret'],
  async provision({ template, resolver, services }) {
    for (const [id, resource] of resourcesOfType(template, 'AWS::SecretsManager::Secret')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const value = typeof props.SecretString === 'string' ? props.SecretString : JSON.stringify({ password: Math.random().toString(36).slice(2) });
      const arn = String(resolver.ref(id));
      services.secrets.standIn.create(arn, value);
      services.secrets.arns.push(arn);
    }
  },
};
