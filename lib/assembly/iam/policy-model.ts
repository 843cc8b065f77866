import type { CfnTemplate } from '../cloud-assembly';
import type { IntrinsicResolver } from '../intrinsics';

/**
 * What the template says about access, resolved: each role's identity policies (inline, the
 * AWS::IAM::Policy and customer managed policies attached to it) and each resource's own policy
 * (bucket policies, KMS key policies, queue policies, secret resource policies, and the function
 * policies that AWS::Lambda::Permission resources add up to), keyed by the resource's ARN or name.
 */

export interface PolicyDocument {
  Version?: string;
  Statement: unknown[] | unknown;
}

export interface RolePolicies {
  arn: string;
  name: string;
  policies: Array<{ name: string; policy: PolicyDocument }>;
}

export interface PolicyModel {
  roles: Map<string, RolePolicies>;
  /** Resource policies by resource ARN (a bucket policy by the bucket's ARN). */
  resourcePolicies: Map<string, PolicyDocument>;
  /** What could not be resolved (a policy naming something unknown locally), for the start report. */
  problems: string[];
}

const asArray = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** Resolves a value of the template, or notes why it cannot (a problem) and gives undefined. */
type Resolve = <T>(what: string, value: unknown) => T | undefined;

/** Each role with its inline policies, by ARN and by logical id (the policies attached to it are added after). */
function readRoles(template: CfnTemplate, resolver: IntrinsicResolver, resolve: Resolve): { roles: Map<string, RolePolicies>; byLogicalId: Map<string, RolePolicies> } {
  const roles = new Map<string, RolePolicies>();
  const byLogicalId = new Map<string, RolePolicies>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::IAM::Role') continue;
    const props = resource.Properties ?? {};
    const arn = resolver.getAtt(id, 'Arn');
    const role: RolePolicies = { arn, name: String(resolver.ref(id)), policies: [] };
    for (const inline of asArray<any>(props.Policies)) {
      const policy = resolve<PolicyDocument>(`${id} inline policy`, inline.PolicyDocument);
      if (policy) role.policies.push({ name: String(inline.PolicyName), policy });
    }
    // AWS managed policies attached by ARN: their content is not in the template, so they grant nothing
    // here; they are resolved only so that one naming something unknown locally is reported.
    for (const managed of asArray<unknown>(props.ManagedPolicyArns)) {
      const ref = (managed as { Ref?: string })?.Ref;
      if (ref && template.Resources[ref]?.Type === 'AWS::IAM::ManagedPolicy') continue; // attached by policyModel, from the policy itself
      resolve<string>(`${id} managed policy`, managed);
    }
    roles.set(arn, role);
    byLogicalId.set(id, role);
  }
  return { roles, byLogicalId };
}

export function policyModel(template: CfnTemplate, resolver: IntrinsicResolver): PolicyModel {
  const resourcePolicies = new Map<string, PolicyDocument>();
  const problems: string[] = [];
  const resolve: Resolve = <T>(what: string, value: unknown): T | undefined => {
    try {
      return resolver.resolve(value) as T;
    } catch (error) {
      problems.push(`${what}: ${(error as Error).message}`);
      return undefined;
    }
  };

  const { roles, byLogicalId } = readRoles(template, resolver, resolve);
  const resources = Object.entries(template.Resources);
  const rolesNamed = (value: unknown): RolePolicies[] =>
    asArray<any>(value).flatMap((r) => {
      const role = typeof r?.Ref === 'string' ? byLogicalId.get(r.Ref) : [...roles.values()].find((x) => x.name === resolve<string>('role name', r));
      return role ? [role] : [];
    });

  for (const [id, resource] of resources) {
    const props = resource.Properties ?? {};
    switch (resource.Type) {
      case 'AWS::IAM::Policy':
      case 'AWS::IAM::ManagedPolicy': {
        const policy = resolve<PolicyDocument>(`${id}`, props.PolicyDocument);
        if (!policy) break;
        const attached = [...rolesNamed(props.Roles)];
        for (const [roleId, role] of Object.entries(template.Resources)) {
          if (role.Type === 'AWS::IAM::Role' && asArray<any>(role.Properties?.ManagedPolicyArns).some((m) => m?.Ref === id)) attached.push(byLogicalId.get(roleId)!);
        }
        for (const role of attached) role.policies.push({ name: String(props.PolicyName ?? id), policy });
        break;
      }
      case 'AWS::S3::BucketPolicy': {
        const bucket = resolve<string>(id, props.Bucket);
        const policy = resolve<PolicyDocument>(id, props.PolicyDocument);
        if (bucket && policy) resourcePolicies.set(`arn:${resolver.ref('AWS::Partition')}:s3:::${bucket}`, policy);
        break;
      }
      case 'AWS::KMS::Key': {
        const policy = resolve<PolicyDocument>(id, props.KeyPolicy);
        if (policy) resourcePolicies.set(resolver.getAtt(id, 'Arn'), policy);
        break;
      }
      case 'AWS::SQS::QueuePolicy': {
        const policy = resolve<PolicyDocument>(id, props.PolicyDocument);
        for (const queue of asArray<any>(props.Queues)) {
          const queueId = queue?.Ref as string | undefined;
          if (policy && queueId && template.Resources[queueId]) resourcePolicies.set(resolver.getAtt(queueId, 'Arn'), policy);
        }
        break;
      }
      case 'AWS::SecretsManager::ResourcePolicy': {
        const secret = resolve<string>(id, props.SecretId);
        const policy = resolve<PolicyDocument>(id, props.ResourcePolicy);
        if (secret && policy) resourcePolicies.set(secret, policy);
        break;
      }
      case 'AWS::Lambda::Permission': {
        const fn = resolve<string>(id, props.FunctionName);
        if (!fn) break;
        const functionArn = fn.startsWith('arn:') ? fn : `arn:${resolver.ref('AWS::Partition')}:lambda:${resolver.ref('AWS::Region')}:${resolver.ref('AWS::AccountId')}:function:${fn}`;
        const principal = resolve<string>(id, props.Principal)!;
        const sourceArn = resolve<string>(id, props.SourceArn);
        const sourceAccount = resolve<string>(id, props.SourceAccount);
        const conditions: Record<string, Record<string, string>> = {};
        if (sourceArn) conditions.ArnLike = { 'AWS:SourceArn': sourceArn };
        if (sourceAccount) conditions.StringEquals = { 'AWS:SourceAccount': sourceAccount };
        const statement = {
          Sid: id,
          Effect: 'Allow',
          Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
          Action: resolve<string>(id, props.Action),
          Resource: functionArn,
          ...(Object.keys(conditions).length > 0 ? { Condition: conditions } : {}),
        };
        const existing = resourcePolicies.get(functionArn);
        if (existing) (existing.Statement as unknown[]).push(statement);
        else resourcePolicies.set(functionArn, { Version: '2012-10-17', Statement: [statement] });
        break;
      }
    }
  }
  return { roles, resourcePolicies, problems };
}
