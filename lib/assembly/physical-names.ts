import { createHash } from 'node:crypto';
import type { CfnResource, CfnTemplate } from './cloud-assembly';

/**
 * The names CloudFormation would give the stack's resources, made up locally: the same shapes
 * (a table named `<stack>-<logicalId>-<suffix>`, a key ARN with a key id, a secret ARN with its
 * six random characters) in one account and region, deterministic for a logical id, so the
 * references in the template (Ref, Fn::GetAtt) resolve to the local stand-ins' names.
 */
export interface LocalAccount {
  account: string;
  region: string;
  partition: string;
  urlSuffix: string;
  stackName: string;
}

export const DEFAULT_ACCOUNT = '123456789012';

/** A CloudFormation-like random suffix: stable for the logical id. */
function suffix(logicalId: string, length = 12): string {
  return createHash('sha256').update(logicalId).digest('base64').replace(/[^A-Za-z0-9]/g, '').toUpperCase().slice(0, length);
}

function generatedName(account: LocalAccount, logicalId: string, max: number): string {
  const tail = `-${suffix(logicalId)}`;
  return `${account.stackName}-${logicalId}`.slice(0, max - tail.length) + tail;
}

function uuidOf(logicalId: string): string {
  const hex = createHash('sha256').update(`uuid:${logicalId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface PhysicalResource {
  /** What Ref gives. */
  ref: string;
  /** What Fn::GetAtt gives, by attribute. */
  attributes: Record<string, string>;
}

/**
 * Ref and Fn::GetAtt values of every resource. `queueUrl` maps a queue name to its URL at the
 * local SQS endpoint (a queue's Ref is its URL).
 */
export function physicalResources(template: CfnTemplate, account: LocalAccount, queueUrl: (name: string) => string): Map<string, PhysicalResource> {
  const out = new Map<string, PhysicalResource>();
  const { region, partition } = account;
  const arn = (service: string, resource: string, inRegion = true, inAccount = true) =>
    `arn:${partition}:${service}:${inRegion ? region : ''}:${inAccount ? account.account : ''}:${resource}`;
  for (const [id, resource] of Object.entries(template.Resources)) {
    out.set(id, physicalOf(id, resource));
  }
  return out;

  function physicalOf(id: string, resource: CfnResource): PhysicalResource {
    const props = resource.Properties ?? {};
    const named = (key: string, max: number) => (typeof props[key] === 'string' ? (props[key] as string) : generatedName(account, id, max));
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table': {
        const name = named('TableName', 255);
        const tableArn = arn('dynamodb', `table/${name}`);
        return { ref: name, attributes: { Arn: tableArn, StreamArn: `${tableArn}/stream/2026-01-01T00:00:00.000` } };
      }
      case 'AWS::S3::Bucket': {
        const name = named('BucketName', 63).toLowerCase();
        return {
          ref: name,
          attributes: {
            Arn: `arn:${partition}:s3:::${name}`,
            DomainName: `${name}.s3.${account.urlSuffix}`,
            RegionalDomainName: `${name}.s3.${region}.${account.urlSuffix}`,
            WebsiteURL: `http://${name}.s3-website.${region}.${account.urlSuffix}`,
          },
        };
      }
      case 'AWS::IAM::Role': {
        const name = named('RoleName', 64);
        const rolePath = typeof props.Path === 'string' ? props.Path : '/';
        return { ref: name, attributes: { Arn: `arn:${partition}:iam::${account.account}:role${rolePath}${name}`, RoleId: `AROA${suffix(id, 17)}` } };
      }
      case 'AWS::IAM::Policy':
        return { ref: suffix(id), attributes: {} };
      case 'AWS::Lambda::Function': {
        const name = named('FunctionName', 64);
        return { ref: name, attributes: { Arn: arn('lambda', `function:${name}`) } };
      }
      case 'AWS::Lambda::LayerVersion':
        return { ref: arn('lambda', `layer:${generatedName(account, id, 64)}:1`), attributes: {} };
      case 'AWS::KMS::Key': {
        const keyId = uuidOf(id);
        return { ref: keyId, attributes: { Arn: arn('kms', `key/${keyId}`), KeyId: keyId } };
      }
      case 'AWS::KMS::Alias':
        return { ref: String(props.AliasName), attributes: {} };
      case 'AWS::SecretsManager::Secret': {
        const name = named('Name', 256);
        const secretArn = arn('secretsmanager', `secret:${name}-${suffix(id, 6)}`);
        return { ref: secretArn, attributes: { Id: secretArn } };
      }
      case 'AWS::SQS::Queue': {
        const name = named('QueueName', 80);
        return { ref: queueUrl(name), attributes: { Arn: arn('sqs', name), QueueName: name, QueueUrl: queueUrl(name) } };
      }
      case 'AWS::ApiGateway::RestApi': {
        const apiId = suffix(id, 10).toLowerCase();
        return { ref: apiId, attributes: { RestApiId: apiId, RootResourceId: suffix(`${id}/root`, 10).toLowerCase() } };
      }
      case 'AWS::ApiGateway::Stage':
        return { ref: String(props.StageName), attributes: {} };
      case 'AWS::Logs::LogGroup': {
        const name = typeof props.LogGroupName === 'string' ? props.LogGroupName : generatedName(account, id, 512);
        return { ref: name, attributes: { Arn: arn('logs', `log-group:${name}:*`) } };
      }
      case 'AWS::CloudFront::Distribution': {
        // An id like E2QWRUHAPOMQZL and a domain like d111111abcdef8.cloudfront.net (lib/assembly/edge/ serves it).
        const distributionId = `E${suffix(id, 13)}`;
        return { ref: distributionId, attributes: { Id: distributionId, DomainName: `d${suffix(`${id}/domain`, 13).toLowerCase()}.cloudfront.net` } };
      }
      case 'AWS::Events::Rule': {
        const name = named('Name', 64);
        return { ref: name, attributes: { Arn: arn('events', `rule/${name}`) } };
      }
      default:
        return { ref: generatedName(account, id, 128), attributes: {} };
    }
  }
}
