import { startKmsStandIn } from '../../local/kms-stand-in';
import { resourcesOfType } from '../cloud-assembly';
import type { Provisioner } from './provisioner';

/**
 * AWS::KMS::Key and AWS::KMS::Alias: each Ed25519 signing key a stand-in of its own, reachable by
 * its ARN, its key id and its aliases; other key specs are named as not emulated. The key policy is
 * the IAM provisioner's.
 */
export const kmsKeys: Provisioner = {
  types: ['AWS::KMS::Key', 'AWS::KMS::Alias'],
  async provision({ template, resolver, services, notEmulated, closers }) {
    const { kms } = services;
    for (const [, alias] of resourcesOfType(template, 'AWS::KMS::Alias')) {
      kms.aliases.push([String(alias.Properties?.AliasName), resolver.resolve(alias.Properties?.TargetKeyId)]);
    }
    for (const [id, resource] of resourcesOfType(template, 'AWS::KMS::Key')) {
      const props = resource.Properties ?? {};
      const arn = resolver.getAtt(id, 'Arn');
      if (props.KeySpec !== 'ECC_NIST_EDWARDS25519' || props.KeyUsage !== 'SIGN_VERIFY') {
        notEmulated.push({ type: 'AWS::KMS::Key', logicalId: id, reason: `${props.KeySpec ?? 'SYMMETRIC_DEFAULT'}: the KMS stand-in holds Ed25519 signing keys only` });
        continue;
      }
      const aliases = kms.aliases.filter(([, target]) => [arn, resolver.ref(id)].includes(target)).map(([name]) => name);
      const key = await startKmsStandIn(arn, { aliases });
      kms.keys.set(arn, key);
      closers.add(() => key.close());
    }
  },
};
