import { Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate, CertificateValidation, type ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HostedZone } from 'aws-cdk-lib/aws-route53';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { SERVICE_NAME } from '../../functions/contract/service';
import { PROBLEMS, problemType } from '../../functions/http/problem';

/** CloudFront takes its certificate and its web ACL from this region, whatever the region of the rest. */
export const CLOUDFRONT_REGION = 'us-east-1';

/** WAF counts a rate-based rule's requests over this window (60, 120, 300 or 600 s). */
export const WAF_RATE_WINDOW_SECONDS = 60;

export interface EdgeUsEast1Props extends StackProps {
  /** Custom domains: a certificate for all of them, validated by DNS in the hosted zone. */
  domains?: { names: string[]; hostedZoneId: string; hostedZoneName: string };
  /** Requests per client (IP address) and minute before the web ACL answers 429. */
  wafRateLimit?: number;
}

/**
 * The parts of the edge CloudFront only takes from us-east-1: the ACM certificate of the custom
 * domains and the CLOUDFRONT-scope WAF web ACL. A stack of its own in that region, deployed before
 * the service's stack (`cdk deploy --all` orders them), which reads the two ARNs from it
 * (CloudFormation's Fn::GetStackOutput across regions: cdk.json's
 * `@aws-cdk/core:defaultCrossStackReferences` is "weak", so no export pins them).
 */
export class EdgeUsEast1Stack extends Stack {
  readonly certificate?: ICertificate;
  readonly webAcl?: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeUsEast1Props) {
    super(scope, id, props);
    if (props.domains) {
      const [domainName, ...others] = props.domains.names;
      const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: props.domains.hostedZoneId, zoneName: props.domains.hostedZoneName });
      this.certificate = new Certificate(this, 'Certificate', {
        domainName,
        ...(others.length > 0 ? { subjectAlternativeNames: others } : {}),
        // ACM writes the validation records into the zone itself (no look-up at synth).
        validation: CertificateValidation.fromDns(zone),
      });
    }
    if (props.wafRateLimit !== undefined) {
      // The same problem the API answers when its throttle refuses (docs/errors.md), made at the edge: no request id to name.
      const problem = {
        type: problemType('THROTTLED'),
        title: PROBLEMS.THROTTLED.title,
        status: PROBLEMS.THROTTLED.status,
        detail: `More than ${props.wafRateLimit} requests from one address within ${WAF_RATE_WINDOW_SECONDS} s. Retry after a minute.`,
        code: 'THROTTLED',
        service: SERVICE_NAME,
      };
      this.webAcl = new CfnWebACL(this, 'WebAcl', {
        scope: 'CLOUDFRONT',
        description: 'Per-client rate limit in front of the public trust and verification service.',
        defaultAction: { allow: {} },
        visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'PublicTrustEdge', sampledRequestsEnabled: true },
        customResponseBodies: { Throttled: { contentType: 'APPLICATION_JSON', content: JSON.stringify(problem) } },
        rules: [
          {
            name: 'PerClientRate',
            priority: 0,
            statement: { rateBasedStatement: { limit: props.wafRateLimit, evaluationWindowSec: WAF_RATE_WINDOW_SECONDS, aggregateKeyType: 'IP' } },
            action: {
              block: {
                customResponse: {
                  responseCode: 429,
                  customResponseBodyKey: 'Throttled',
                  responseHeaders: [
                    { name: 'Retry-After', value: String(WAF_RATE_WINDOW_SECONDS) },
                    { name: 'Access-Control-Allow-Origin', value: '*' },
                  ],
                },
              },
            },
            visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'PublicTrustEdgePerClientRate', sampledRequestsEnabled: true },
          },
        ],
      });
    }
  }
}
