import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { createApp } from '../../../lib/stack/app';
import { fixtureSite, SKIP_BUNDLING } from '../support';
import { stack, synthesized } from './template';

/** lib/stack/nag-acknowledgements.ts: the AWS Solutions checks (cdk-nag) and the findings acknowledged, each with its reason. */

describe('cdk-nag AwsSolutions checks', () => {
  test('no unacknowledged finding (synth validates the app)', () => {
    const { app } = synthesized();
    let failure: unknown;
    try {
      app.synth({ force: true });
    } catch (error) {
      failure = error;
    }
    if (failure) {
      const report = JSON.parse(readFileSync(path.join(app.outdir, 'validation-report.json'), 'utf8'));
      const findings = report.pluginReports.flatMap((r: any) =>
        r.violations.flatMap((v: any) => v.violatingConstructs.map((c: any) => `${v.ruleName} ${c.constructPath}`)),
      );
      expect(findings).toEqual([]);
    }
    expect(failure).toBeUndefined();
  });

  test('the checks are really on: an acknowledged finding comes back when its acknowledgement is removed', () => {
    const { app, stack: s } = createApp({ context: SKIP_BUNDLING }, { siteDir: fixtureSite() });
    // A second, unacknowledged secret must fail the validation.
    new Secret(s, 'UnacknowledgedSecret');
    expect(() => app.synth({ force: true })).toThrow(/AwsSolutions-SMG4/);
  });

  test('every acknowledgement carries a reason', () => {
    const acknowledged = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY).map((m) => m.data as Record<string, string>));
    const nagAcknowledgements = acknowledged.flatMap((data) => Object.entries(data)).filter(([id]) => id.includes('AwsSolutions-'));
    expect(nagAcknowledgements.length).toBeGreaterThan(0);
    for (const [, reason] of nagAcknowledgements) expect(reason.length).toBeGreaterThan(40);
  });
});
