import { Match } from 'aws-cdk-lib/assertions';
import { createApp } from '../../../lib/stack/app';
import { fixtureSite, logicalIdOf, SKIP_BUNDLING, synthesize } from '../support';
import { lambdaOps, synthesized } from './template';

/** lib/stack/settings.ts: the context settings a deployment chooses, checked at synth. */

describe('context settings', () => {
  test('context settings reach the stage and the functions', () => {
    const custom = synthesized({
      throttleRateLimit: '7',
      throttleBurstLimit: '9',
      stageName: 'v2',
      ledgerVerifierKeys: 'key-1',
      logRetentionDays: 90,
      releaseCommit: 'abc1234',
      publicBaseUrl: 'https://trust.example.org/',
      logLevel: 'warn',
      logSampleRate: '0.05',
    });
    custom.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v2',
      MethodSettings: Match.arrayWith([Match.objectLike({ ResourcePath: '/*', ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 })]),
    });
    for (const op of lambdaOps.filter((o) => o.integration.access === 'table-read')) {
      const fn = custom.stack.functions.byOperationId.get(op.operationId)!;
      expect(custom.json.Resources[logicalIdOf(custom.stack, fn)].Properties.Environment.Variables.LEDGER_VERIFIER_KEYS).toEqual({
        'Fn::GetAtt': [logicalIdOf(custom.stack, custom.stack.verifierKey.resource), 'TrustedVerifierKeys'],
      });
    }
    // The pinned key goes to the deploy-time check, which fails the deployment unless it names the KMS key's.
    custom.template.hasResourceProperties('Custom::LedgerVerifierKey', { PinnedVerifierKeys: 'key-1', Origin: 'trust.example.org/ledger' });
    custom.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    for (const fn of custom.stack.functions.byOperationId.values()) {
      expect(custom.json.Resources[logicalIdOf(custom.stack, fn)].Properties.Environment.Variables).toMatchObject({
        RELEASE_COMMIT: 'abc1234',
        PUBLIC_BASE_URL: 'https://trust.example.org',
        POWERTOOLS_LOG_LEVEL: 'WARN',
        POWERTOOLS_LOGGER_SAMPLE_RATE: '0.05',
      });
    }
    expect(custom.json.Resources[logicalIdOf(custom.stack, custom.stack.sequencer.function)].Properties.Environment.Variables).toMatchObject({
      POWERTOOLS_LOG_LEVEL: 'WARN',
      POWERTOOLS_LOGGER_SAMPLE_RATE: '0.05',
    });
  });

  test('activation settings reach only the functions whose operation declares them', () => {
    const custom = synthesized({ activationSettings: JSON.stringify({ OIDC_ISSUER_URL: 'https://id.example.org', OIDC_CLIENT_ID: 'svc-client' }) });
    for (const op of lambdaOps) {
      const fn = custom.stack.functions.byOperationId.get(op.operationId)!;
      const variables = custom.json.Resources[logicalIdOf(custom.stack, fn)].Properties.Environment.Variables;
      if (op.integration.settings?.includes('OIDC_ISSUER_URL')) {
        expect(variables).toMatchObject({ OIDC_ISSUER_URL: 'https://id.example.org', OIDC_CLIENT_ID: 'svc-client' });
      } else {
        expect(variables.OIDC_ISSUER_URL).toBeUndefined();
        expect(variables.OIDC_CLIENT_ID).toBeUndefined();
      }
    }
    expect(lambdaOps.filter((op) => op.integration.settings?.includes('OIDC_ISSUER_URL')).map((op) => op.operationId).sort()).toEqual(['getActivationReadiness', 'getStudio']);
    expect(() => synthesize({ activationSettings: '["not", "an object"]' })).toThrow('activationSettings');
  });

  test('a wrong context value stops the synth and names the key', () => {
    expect(() => createApp({ context: { ...SKIP_BUNDLING, deletionProtection: 'maybe' } }, { siteDir: fixtureSite() })).toThrow('deletionProtection');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, logRetentionDays: 8 } }, { siteDir: fixtureSite() })).toThrow('logRetentionDays');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, throttleRateLimit: '-1' } }, { siteDir: fixtureSite() })).toThrow('throttleRateLimit');
    expect(() => createApp({ context: { ...SKIP_BUNDLING, publicBaseUrl: 'http://plain.example' } }, { siteDir: fixtureSite() })).toThrow('publicBaseUrl');
    for (const rate of ['1.5', '-0.1', 'often', '']) {
      expect(() => createApp({ context: { ...SKIP_BUNDLING, logSampleRate: rate } }, { siteDir: fixtureSite() })).toThrow('logSampleRate');
    }
  });
});
