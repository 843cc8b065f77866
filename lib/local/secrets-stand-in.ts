import { randomUUID } from 'node:crypto';
import { AwsServiceError, startAwsJsonService } from './aws-json-service';

/**
 * A stand-in for AWS Secrets Manager holding the secrets it is given, speaking its JSON protocol
 * (`X-Amz-Target: secretsmanager.*`, `application/x-amz-json-1.1`), so the SDK client reaches it
 * through `AWS_ENDPOINT_URL_SECRETS_MANAGER`. A secret is found by its ARN or its name, as the
 * service finds it; GetSecretValue, PutSecretValue and DescribeSecret are served (the current
 * version only: AWSCURRENT).
 */
export interface SecretsStandIn {
  endpoint: string;
  /** Creates a secret (what CloudFormation does for AWS::SecretsManager::Secret). */
  create(arn: string, value: string): void;
  close(): Promise<void>;
}

interface StoredSecret {
  arn: string;
  name: string;
  value: string;
  versionId: string;
  created: number;
}

/** The name inside a secret ARN: `arn:aws:secretsmanager:REGION:ACCOUNT:secret:NAME-XXXXXX`. */
function secretNameOf(arn: string): string {
  const resource = arn.split(':').slice(6).join(':');
  return resource.replace(/-[A-Za-z0-9]{6}$/, '');
}

export async function startSecretsStandIn(): Promise<SecretsStandIn> {
  const secrets = new Map<string, StoredSecret>();
  const find = (id: unknown): StoredSecret => {
    const found = typeof id === 'string' ? [...secrets.values()].find((s) => s.arn === id || s.name === id || (id.startsWith('arn:') && s.arn.startsWith(id))) : undefined;
    if (!found) throw new AwsServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return found;
  };
  const service = await startAwsJsonService({
    targetPrefix: 'secretsmanager',
    contentType: 'application/x-amz-json-1.1',
    handlers: {
      GetSecretValue: (body) => {
        const secret = find(body.SecretId);
        if (body.VersionStage && body.VersionStage !== 'AWSCURRENT') throw new AwsServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret value for staging label: " + body.VersionStage);
        return { ARN: secret.arn, Name: secret.name, SecretString: secret.value, VersionId: secret.versionId, VersionStages: ['AWSCURRENT'], CreatedDate: secret.created / 1000 };
      },
      PutSecretValue: (body) => {
        const secret = find(body.SecretId);
        if (typeof body.SecretString !== 'string') throw new AwsServiceError('InvalidParameterException', 'You must provide either SecretString or SecretBinary.');
        secret.value = body.SecretString;
        secret.versionId = randomUUID();
        return { ARN: secret.arn, Name: secret.name, VersionId: secret.versionId, VersionStages: ['AWSCURRENT'] };
      },
      DescribeSecret: (body) => {
        const secret = find(body.SecretId);
        return { ARN: secret.arn, Name: secret.name, CreatedDate: secret.created / 1000, VersionIdsToStages: { [secret.versionId]: ['AWSCURRENT'] } };
      },
    },
  });
  return {
    endpoint: service.endpoint,
    create(arn, value) {
      secrets.set(arn, { arn, name: secretNameOf(arn), value, versionId: randomUUID(), created: Date.now() });
    },
    close: () => service.close(),
  };
}
