import { CustomResource, Duration } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { deployedFunction } from './bundling';
import { ownLogGroupAndRole } from './logging';
import type { LedgerSigningKey } from './sequencer';

/** The custom resource's handler, relative to the repository root. */
export const LEDGER_VERIFIER_KEY_ENTRY = 'functions/handlers/ledger-verifier-key.ts';

/** The custom resource's type in the template (the assembly runner provisions it by this name). */
export const LEDGER_VERIFIER_KEY_TYPE = 'Custom::LedgerVerifierKey';

export interface LedgerVerifierKeyProps {
  projectRoot: string;
  signingKey: LedgerSigningKey;
  /** The log's origin (never empty: the stack refuses to synthesize without one). */
  origin: string;
  /** Verifier keys an operator pinned in context (ledgerVerifierKeys): the deployment fails unless they name the KMS key's. */
  pinnedVerifierKeys: string;
  logRetention: RetentionDays;
}

/**
 * The ledger's verifier key, learned from the KMS key at deploy time: a custom resource whose
 * function calls KMS GetPublicKey (its only permission) and derives the C2SP verifier key under the
 * log's origin. Every read function trusts its `TrustedVerifierKeys` attribute, so the first deploy
 * gives reads that confirm integrity; a pinned key that differs fails the deploy, naming both.
 *
 * Why at deploy time rather than in each function at cold start: the read functions then hold no
 * KMS permission and make no KMS call (no added cold-start latency, no KMS outage turning into
 * unconfirmed evidence), the key every reader trusts is fixed in the template and visible in the
 * console, and a wrong pin stops the deployment instead of showing up later as failed integrity.
 */
export class LedgerVerifierKey extends Construct {
  readonly resource: CustomResource;
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: LedgerVerifierKeyProps) {
    super(scope, id);
    const { logGroup, role } = ownLogGroupAndRole(this, {
      description: 'Learns the ledger\'s verifier key at deploy time: kms:GetPublicKey on the ledger key, nothing else.',
      logRetention: props.logRetention,
    });
    role.addToPolicy(new PolicyStatement({ sid: 'ReadTheLedgerKeysPublicHalf', actions: ['kms:GetPublicKey'], resources: [props.signingKey.key.keyArn] }));

    this.function = new NodejsFunction(this, 'Function', {
      description: 'Deploy time only: learns the ledger\'s verifier key from its KMS key (GetPublicKey) and checks it against the pinned keys.',
      ...deployedFunction(props.projectRoot, LEDGER_VERIFIER_KEY_ENTRY),
      memorySize: 256,
      timeout: Duration.seconds(30),
      role,
      logGroup,
    });

    this.resource = new CustomResource(this, 'Resource', {
      serviceToken: this.function.functionArn,
      resourceType: LEDGER_VERIFIER_KEY_TYPE,
      properties: { KeyId: props.signingKey.key.keyArn, Origin: props.origin, PinnedVerifierKeys: props.pinnedVerifierKeys },
    });
    // The policy must be in place before CloudFormation invokes the function.
    this.resource.node.addDependency(role);
  }

  /** What the read functions trust (LEDGER_VERIFIER_KEYS): a deploy-time value. */
  get trustedVerifierKeys(): string {
    return this.resource.getAttString('TrustedVerifierKeys');
  }

  get verifierKey(): string {
    return this.resource.getAttString('VerifierKey');
  }
}
