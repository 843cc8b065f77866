import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT, TrustServiceStack, type TrustServiceStackProps } from './trust-service-stack';

export const STACK_NAME = 'PublicTrustVerificationService';

/** The context of cdk.json (feature flags, settings), so an app built outside the CLI (tests) matches `cdk synth`. */
export function projectContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

/**
 * The CDK app: the service stack with the AWS Solutions checks (cdk-nag) as a synth-time
 * validation, so an unacknowledged finding stops `cdk synth` as it fails the tests.
 */
export function createApp(appProps: AppProps = {}, stackProps: TrustServiceStackProps = {}): { app: App; stack: TrustServiceStack } {
  const app = new App({ ...appProps, context: { ...projectContext(), ...appProps.context } });
  const stack = new TrustServiceStack(app, STACK_NAME, {
    description: 'Public, read-only trust and verification service (API Gateway, Lambda, DynamoDB, S3).',
    // The template holds the API Gateway import document and one function per operation; written
    // without indentation it stays well below CloudFormation's 1 MB template limit.
    suppressTemplateIndentation: true,
    ...stackProps,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}
