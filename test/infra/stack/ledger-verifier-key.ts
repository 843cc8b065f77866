import { LEDGER_VERIFIER_KEY_ENTRY, LEDGER_VERIFIER_KEY_TYPE } from '../../../lib/stack/ledger-verifier-key';
import { grantsOf, logicalIdOf, TEST_LEDGER_ORIGIN } from '../support';
import { ledgerKeyId, ofType, resources, stack, verifierKeyId } from './template';

/** lib/stack/ledger-verifier-key.ts: the verifier key learned from the KMS key at deploy time. */

describe('the ledger verifier key, learned at deploy time', () => {
  test('one custom resource asks the ledger key under the log origin, with no key pinned by default', () => {
    const [[id, resource], ...others] = ofType(LEDGER_VERIFIER_KEY_TYPE);
    expect(others).toEqual([]);
    expect(id).toBe(verifierKeyId);
    expect(resource.Properties.KeyId).toEqual({ 'Fn::GetAtt': [ledgerKeyId, 'Arn'] });
    expect(resource.Properties.Origin).toBe(TEST_LEDGER_ORIGIN);
    expect(resource.Properties.PinnedVerifierKeys).toBe('');
    // Served by its own function, whose role may only read the key's public half (and write its logs).
    const fnId = logicalIdOf(stack, stack.verifierKey.function);
    expect(resource.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [fnId, 'Arn'] });
    const roleId = resources[fnId].Properties.Role['Fn::GetAtt'][0];
    const kmsGrants = grantsOf(resources, roleId).filter((g) => g.action.startsWith('kms:'));
    expect(kmsGrants.map((g) => [g.effect, g.action, g.resource])).toEqual([['Allow', 'kms:GetPublicKey', { 'Fn::GetAtt': [ledgerKeyId, 'Arn'] }]]);
    expect(grantsOf(resources, roleId).map((g) => g.action).sort()).toEqual(['kms:GetPublicKey', 'logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(resource.DependsOn).toEqual(expect.arrayContaining([roleId]));
    expect(LEDGER_VERIFIER_KEY_ENTRY).toBe('functions/handlers/ledger-verifier-key.ts');
  });

  test('every read function trusts what it learned, and no read function may call KMS', () => {
    const trusting = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.LEDGER_VERIFIER_KEYS !== undefined);
    expect(trusting.length).toBeGreaterThan(5);
    for (const [fnId, fn] of trusting) {
      expect(fn.Properties.Environment.Variables.LEDGER_VERIFIER_KEYS).toEqual({ 'Fn::GetAtt': [verifierKeyId, 'TrustedVerifierKeys'] });
      const roleId = fn.Properties.Role['Fn::GetAtt'][0];
      expect([fnId, grantsOf(resources, roleId).filter((g) => g.action.startsWith('kms:'))]).toEqual([fnId, []]);
    }
  });
});
