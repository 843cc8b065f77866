import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, Validations, type AppProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CLOUDFRONT_REGION, EdgeUsEast1Stack } from './edge-us-east-1';
import { settingsFrom } from './settings';
import { PROJECT_ROOT, TrustServiceStack, type TrustServiceStackProps } from './trust-service-stack';

export const STACK_NAME = 'PublicTrustVerificationService';
/** The stack of what CloudFront takes from us-east-1 only (custom domains' certificate, web ACL). */
export const EDGE_US_EAST_1_STACK_NAME = `${STACK_NAME}EdgeUsEast1`;

/** The context of cdk.json (feature flags, settings), so an app built outside the CLI (tests) matches `cdk synth`. */
export function projectContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return cdkJson.context ?? {};
}

export interface ServiceApp {
  app: App;
  stack: TrustServiceStack;
  /** Present only with custom domains or wafRateLimit. */
  edgeUsEast1?: EdgeUsEast1Stack;
}

/**
 * The CDK app: the service stack with the AWS Solutions checks (cdk-nag) as a synth-time
 * validation, so an unacknowledged finding stops `cdk synth` as it fails the tests.
 *
 * With custom domains or a per-client rate limit, a second stack in us-east-1 holds the certificate
 * and the web ACL (CloudFront takes both from there only); the service stack reads their ARNs across
 * regions, which CloudFormation resolves only between stacks of known regions: the service stack is
 * then bound to the region the CLI deploys to (CDK_DEFAULT_REGION, from AWS_REGION or the profile)
 * or the one given in its props. Without either, the one stack stays region-agnostic, as before.
 */
export function createApp(appProps: AppProps = {}, stackProps: TrustServiceStackProps = {}): ServiceApp {
  const app = new App({ ...appProps, context: { ...projectContext(), ...appProps.context } });
  const settings = settingsFrom(app.node);
  const domainNames = [...new Set([settings.verificationDomain, settings.generalDomain].filter(Boolean))];
  let edgeUsEast1: EdgeUsEast1Stack | undefined;
  let props: TrustServiceStackProps = stackProps;
  if (settings.edge && (domainNames.length > 0 || settings.wafRateLimit !== null)) {
    const region = stackProps.env?.region ?? process.env.CDK_DEFAULT_REGION;
    if (!region) {
      throw new Error('custom domains and wafRateLimit put the certificate and web ACL in us-east-1, read across regions by a stack of a known region: set AWS_REGION (or a profile region) for cdk');
    }
    const account = stackProps.env?.account ?? process.env.CDK_DEFAULT_ACCOUNT;
    edgeUsEast1 = new EdgeUsEast1Stack(app, EDGE_US_EAST_1_STACK_NAME, {
      description: 'What CloudFront takes from us-east-1 for the public trust and verification service: the custom domains\' certificate, the web ACL.',
      env: { region: CLOUDFRONT_REGION, ...(account ? { account } : {}) },
      crossRegionReferences: true,
      ...(domainNames.length > 0 ? { domains: { names: domainNames, hostedZoneId: settings.hostedZoneId, hostedZoneName: settings.hostedZoneName } } : {}),
      ...(settings.wafRateLimit !== null ? { wafRateLimit: settings.wafRateLimit } : {}),
    });
    props = {
      ...stackProps,
      env: { region, ...(account ? { account } : {}) },
      crossRegionReferences: true,
      edgeUsEast1: { certificate: edgeUsEast1.certificate, webAclArn: edgeUsEast1.webAcl?.attrArn },
    };
  }
  const stack = new TrustServiceStack(app, STACK_NAME, {
    description: 'Public, read-only trust and verification service (API Gateway, Lambda, DynamoDB, S3).',
    // The template holds the API Gateway import document and one function per operation; written
    // without indentation it stays well below CloudFormation's 1 MB template limit.
    suppressTemplateIndentation: true,
    ...props,
  });
  if (edgeUsEast1) stack.addStackDependency(edgeUsEast1, 'the certificate and the web ACL the distribution names');
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, ...(edgeUsEast1 ? { edgeUsEast1 } : {}) };
}
