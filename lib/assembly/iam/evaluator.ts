import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { PolicyModel } from './policy-model';

/**
 * Decides whether a call is allowed the way IAM does, with a real policy evaluator
 * (@cloud-copilot/iam-simulate: identity and resource policies, every condition operator, same
 * account rules and the KMS key policy's own rules). The policies are the template's
 * (policy-model.ts); the request's condition keys are the caller's (principal ARN, account), the
 * service's (dynamodb:LeadingKeys, kms:SigningAlgorithm, ...) and the transport's.
 *
 * @cloud-copilot/iam-simulate is AGPL-3.0: a devDependency the local runner loads, never part of
 * a deployed bundle.
 */

export type Caller =
  /** A role session: a function's execution role, a credentials role API Gateway assumes, the loader role. */
  | { kind: 'role'; roleArn: string; sessionName: string }
  /** An AWS service acting for the stack (API Gateway or EventBridge invoking a function). */
  | { kind: 'service'; service: string };

export interface Call {
  action: string;
  /** The resource's ARN ('*' for actions on no resource). */
  resource: string;
  /** Condition keys of the request beyond the caller's own. */
  context?: Record<string, string | string[]>;
}

export interface Decision {
  allowed: boolean;
  /** As AWS words a refusal: "User: ... is not authorized to perform: ... because ...". */
  message: string;
}

function sessionArnOf(caller: Caller, account: string, partition = 'aws'): string {
  if (caller.kind === 'service') return caller.service;
  const roleName = caller.roleArn.slice(caller.roleArn.lastIndexOf('/') + 1);
  return `arn:${partition}:sts::${account}:assumed-role/${roleName}/${caller.sessionName}`;
}

const CACHE_LIMIT = 10_000;

export class IamEvaluator {
  private model: PolicyModel;
  private readonly cache = new Map<string, Decision>();

  constructor(
    model: PolicyModel,
    private readonly account: string,
    private readonly region: string,
  ) {
    this.model = model;
  }

  /** Another version of the template's policies (a stack update that changed IAM). */
  replaceModel(model: PolicyModel): void {
    this.model = model;
    this.cache.clear();
  }

  get policies(): PolicyModel {
    return this.model;
  }

  /** The resource policy that governs `resource` (a bucket's for its objects). */
  private resourcePolicyFor(resource: string): unknown {
    const direct = this.model.resourcePolicies.get(resource);
    if (direct) return direct;
    const s3 = /^(arn:[^:]+:s3:::[^/]+)\//.exec(resource);
    if (s3) return this.model.resourcePolicies.get(s3[1]);
    const index = /^(arn:[^:]+:dynamodb:[^:]+:[^:]+:table\/[^/]+)\//.exec(resource);
    if (index) return this.model.resourcePolicies.get(index[1]);
    return undefined;
  }

  async decide(caller: Caller, call: Call): Promise<Decision> {
    const key = JSON.stringify([caller, call]);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const decision = await this.evaluate(caller, call);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, decision);
    return decision;
  }

  private async evaluate(caller: Caller, call: Call): Promise<Decision> {
    const principal = sessionArnOf(caller, this.account);
    const role = caller.kind === 'role' ? this.model.roles.get(caller.roleArn) : undefined;
    const context: Record<string, string | string[]> = {
      // The functions' SDK clients reach AWS over TLS; the local endpoints stand in for those HTTPS endpoints.
      'aws:SecureTransport': 'true',
      'aws:RequestedRegion': this.region,
      ...(caller.kind === 'role'
        ? { 'aws:PrincipalArn': caller.roleArn, 'aws:PrincipalAccount': this.account, 'aws:PrincipalType': 'AssumedRole' }
        : { 'aws:PrincipalIsAWSService': 'true', 'aws:PrincipalServiceName': caller.service }),
      ...call.context,
    };
    const refused = (because: string): Decision => ({
      allowed: false,
      message: `User: ${principal} is not authorized to perform: ${call.action} on resource: ${call.resource} ${because}`,
    });
    if (caller.kind === 'role' && !role) return refused(`because the role ${caller.roleArn} is not in the template`);
    const resourcePolicy = this.resourcePolicyFor(call.resource);
    const result = await runSimulation(
      {
        request: { principal, action: call.action, resource: { resource: call.resource, accountId: this.account }, contextVariables: context },
        identityPolicies: role ? role.policies : [],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
      },
      {},
    );
    if (result.resultType === 'error') return refused(`because the request could not be evaluated: ${JSON.stringify(result.errors)}`);
    if (result.overallResult === 'Allowed') return { allowed: true, message: 'allowed' };
    const analysis = (result.resultType === 'single' ? result.result.analysis : undefined) as
      | { identityAnalysis?: { result?: string }; resourceAnalysis?: { result?: string } }
      | undefined;
    if (analysis?.resourceAnalysis?.result === 'ExplicitlyDenied') return refused('with an explicit deny in a resource-based policy');
    if (analysis?.identityAnalysis?.result === 'ExplicitlyDenied') return refused('with an explicit deny in an identity-based policy');
    if (call.action.startsWith('kms:') && analysis?.resourceAnalysis?.result !== 'Allowed' && analysis?.resourceAnalysis?.result !== 'AllowedForAccount') {
      return refused(`because no resource-based policy allows the ${call.action} action`);
    }
    if (caller.kind === 'service') return refused(`because no resource-based policy allows the ${call.action} action`);
    return refused(`because no identity-based policy allows the ${call.action} action`);
  }
}
