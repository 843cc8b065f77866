import { readFileSync, statSync } from 'node:fs';
import { synthesized } from './template';

/** lib/stack/app.ts: the app as `cdk synth` builds it. */

test('the template stays well under CloudFormation\'s 1 MB limit for a template in S3', () => {
  // Measured as CDK writes it: without indentation (suppressTemplateIndentation, lib/stack/app.ts).
  const { app, stack: s } = synthesized();
  const file = app.synth({ force: true }).getStackByName(s.stackName).templateFullPath;
  expect(readFileSync(file, 'utf8').slice(0, 2)).toBe('{"');
  expect(statSync(file).size).toBeLessThan(800_000);
});
