import { RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/**
 * The receivers' verification keys (docs/ingress.md#keys): one Secrets Manager secret holding
 * `{ "<sourceId>": "whsec_..." | "whpk_..." | [several, for rotation] }`. It is created holding
 * `{}`, so every source is gated (503 SOURCE_GATED) until an operator activates it by setting its
 * keys; nothing unsigned is ever accepted. Only the receivers are granted to read it.
 */
export class IngressSecrets extends Construct {
  readonly secret: Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.secret = new Secret(this, 'VerificationKeys', {
      description: 'Standard Webhooks verification keys per event source ({"<sourceId>": "whsec_..." or "whpk_..."}); {} gates every source.',
      // Not a secret value: the empty configuration, which activates nothing.
      secretStringValue: SecretValue.unsafePlainText('{}'),
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
