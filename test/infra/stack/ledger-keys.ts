import { LEDGER_VERIFIER_KEY_TYPE } from '../../../lib/stack/ledger-verifier-key';
import { grantsOf, logicalIdOf, synthesize, TEST_LEDGER_ORIGIN } from '../support';
import { ledgerKeyId, synthesized, verifierKeyId } from './template';

/**
 * lib/stack/ledger-keys.ts: a key change deployed (`-c ledgerKeys=2`), then closed
 * (`-c ledgerRetiredLogs=<origin>=<final size>`): the first key kept under its logical id, the
 * writers moved to the new key, the loader alone signing with the old one during the handover,
 * then no one; the read functions trusting both verifier keys (learned at deploy time) and the
 * retired log's final size.
 */

const NEW_ORIGIN = `${TEST_LEDGER_ORIGIN}/2`;

function generation2(context: Record<string, unknown> = {}) {
  const { stack, json } = synthesized({ ledgerKeys: 2, ...context });
  const resources = json.Resources;
  const [first, second] = stack.ledgerKeys.generations;
  const keyIds = [logicalIdOf(stack, first.key.key), logicalIdOf(stack, second.key.key)];
  const roles = { sequencer: logicalIdOf(stack, stack.sequencer.role), loader: logicalIdOf(stack, stack.loader.role) };
  const signs = (roleId: string) => grantsOf(resources, roleId).filter((g) => g.action === 'kms:Sign').map((g) => (g.resource as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]);
  const policyOf = (keyId: string) => resources[keyId].Properties.KeyPolicy.Statement as Array<{ Sid?: string; Effect: string; Action: string | string[]; Condition?: Record<string, Record<string, unknown>> }>;
  const readFunctions = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.LEDGER_VERIFIER_KEYS !== undefined);
  return { stack, json, resources, keyIds, roles, signs, policyOf, readFunctions };
}

describe('a key change deployed: -c ledgerKeys=2', () => {
  test('the first key keeps its logical id (never replaced) and is retained; the second is beside it, with its own alias and origin', () => {
    const { resources, keyIds, stack } = generation2();
    expect(keyIds[0]).toBe(ledgerKeyId);
    expect(keyIds[1]).not.toBe(ledgerKeyId);
    for (const id of keyIds) expect([resources[id].DeletionPolicy, resources[id].Properties.KeySpec]).toEqual(['Retain', 'ECC_NIST_EDWARDS25519']);
    const aliases = Object.values(resources).filter((r) => r.Type === 'AWS::KMS::Alias').map((r) => r.Properties.AliasName);
    expect(aliases).toEqual([expect.stringMatching(/\/ledger-checkpoints$/), expect.stringMatching(/\/ledger-checkpoints-2$/)]);
    // Each key's verifier key learned by a custom resource of its own, under its log's origin; the first keeps its id too.
    const learned = Object.entries(resources).filter(([, r]) => r.Type === LEDGER_VERIFIER_KEY_TYPE);
    expect(learned.map(([id, r]) => [id === verifierKeyId, r.Properties.KeyId, r.Properties.Origin])).toEqual([
      [true, { 'Fn::GetAtt': [keyIds[0], 'Arn'] }, TEST_LEDGER_ORIGIN],
      [false, { 'Fn::GetAtt': [keyIds[1], 'Arn'] }, NEW_ORIGIN],
    ]);
    expect(stack.ledgerKeys.current.origin).toBe(NEW_ORIGIN);
  });

  test('the sequencer signs with the new key under the new origin only; the loader role with the new key, and with the old one for the handover', () => {
    const { resources, keyIds, roles, signs, policyOf, stack } = generation2();
    const env = resources[logicalIdOf(stack, stack.sequencer.function)].Properties.Environment.Variables;
    expect([env.LEDGER_KMS_KEY_ARN, env.LEDGER_ORIGIN]).toEqual([{ 'Fn::GetAtt': [keyIds[1], 'Arn'] }, NEW_ORIGIN]);
    expect(signs(roles.sequencer)).toEqual([keyIds[1]]);
    expect(signs(roles.loader).sort()).toEqual([...keyIds].sort());
    // The key policies: the new key's signers are both writers; the old key's, the loader role alone. Administration stays apart from use.
    const signers = (keyId: string) => policyOf(keyId).find((s) => s.Sid === 'TheLedgerWritersSign')?.Condition?.ArnEquals['aws:PrincipalArn'];
    expect(signers(keyIds[1])).toEqual([{ 'Fn::GetAtt': [roles.sequencer, 'Arn'] }, { 'Fn::GetAtt': [roles.loader, 'Arn'] }]);
    expect(signers(keyIds[0])).toEqual([{ 'Fn::GetAtt': [roles.loader, 'Arn'] }]);
    for (const id of keyIds) expect(policyOf(id).find((s) => s.Sid === 'AccountAdministersTheKey')?.Action).not.toContain('kms:Sign');
  });

  test('the read functions trust both verifier keys, newest first, as learned at deploy time; the outputs name the key being retired', () => {
    const { json, readFunctions, stack, keyIds } = generation2();
    const [first, second] = stack.ledgerKeys.generations.map((g) => logicalIdOf(stack, g.verifierKey.resource));
    expect(readFunctions.length).toBeGreaterThan(5);
    for (const fn of readFunctions) {
      expect(fn.Properties.Environment.Variables.LEDGER_VERIFIER_KEYS).toEqual({ 'Fn::Join': [',', [{ 'Fn::GetAtt': [second, 'VerifierKey'] }, { 'Fn::GetAtt': [first, 'VerifierKey'] }]] });
      expect(fn.Properties.Environment.Variables.LEDGER_RETIRED_LOGS).toBeUndefined();
    }
    expect(json.Outputs.LedgerKeyArn.Value).toEqual({ 'Fn::GetAtt': [keyIds[1], 'Arn'] });
    expect(json.Outputs.LedgerOrigin.Value).toBe(NEW_ORIGIN);
    expect(json.Outputs.PreviousLedgerKeyArn.Value).toEqual({ 'Fn::GetAtt': [keyIds[0], 'Arn'] });
    expect(json.Outputs.PreviousLedgerOrigin.Value).toBe(TEST_LEDGER_ORIGIN);
  });

  test('a pinned list is checked by every key\'s custom resource and is what the functions trust', () => {
    const pinned = 'new+00000001+AAAA,old+00000002+BBBB';
    const { resources, readFunctions } = generation2({ ledgerVerifierKeys: pinned });
    const learned = Object.values(resources).filter((r) => r.Type === LEDGER_VERIFIER_KEY_TYPE);
    expect(learned.map((r) => r.Properties.PinnedVerifierKeys)).toEqual([pinned, pinned]);
    for (const fn of readFunctions) expect(fn.Properties.Environment.Variables.LEDGER_VERIFIER_KEYS).toEqual({ 'Fn::GetAtt': [verifierKeyId, 'TrustedVerifierKeys'] });
  });
});

describe('the handover closed: -c ledgerRetiredLogs=<old origin>=<final size>', () => {
  test('no one may sign with the old key any more, and the read functions refuse its evidence beyond the final size', () => {
    const { keyIds, roles, signs, policyOf, readFunctions, json } = generation2({ ledgerRetiredLogs: `${TEST_LEDGER_ORIGIN}=42` });
    expect(signs(roles.loader)).toEqual([keyIds[1]]);
    expect(signs(roles.sequencer)).toEqual([keyIds[1]]);
    expect(policyOf(keyIds[0]).find((s) => s.Sid === 'RetiredKeySignsNothing')).toMatchObject({ Effect: 'Deny', Action: 'kms:Sign' });
    expect(policyOf(keyIds[0]).find((s) => s.Sid === 'TheLedgerWritersSign')).toBeUndefined();
    for (const fn of readFunctions) expect(fn.Properties.Environment.Variables.LEDGER_RETIRED_LOGS).toBe(`${TEST_LEDGER_ORIGIN}=42`);
    expect(json.Outputs.PreviousLedgerKeyArn).toBeUndefined();
  });

  test('wrong settings stop the synth naming the context', () => {
    expect(() => synthesize({ ledgerKeys: 0 })).toThrow(/context 'ledgerKeys' is the number of ledger keys/);
    expect(() => synthesize({ ledgerKeys: 2, ledgerRetiredLogs: `${NEW_ORIGIN}=3` })).toThrow(/verify.example.org\/ledger\/2 is not the log of an earlier ledger key \(verify.example.org\/ledger\)/);
    expect(() => synthesize({ ledgerRetiredLogs: `${TEST_LEDGER_ORIGIN}=3` })).toThrow(/there is none: ledgerKeys is 1/);
    expect(() => synthesize({ ledgerKeys: 2, ledgerRetiredLogs: `${TEST_LEDGER_ORIGIN}=x` })).toThrow(/is not <origin>=<final tree size>/);
  });
});
