import type { Call } from '../iam/evaluator';
import { coralRefusalTypes, jsonBody, jsonRefusal, MalformedRequest, operationOf, plainRefusalTypes, type InboundRequest, type ServiceRules } from './iam-endpoint';

/**
 * KMS, Secrets Manager and SQS requests as IAM sees them (`kms:Sign` on the key's ARN with
 * kms:SigningAlgorithm and kms:MessageType, `secretsmanager:GetSecretValue` on the secret's ARN,
 * `sqs:SendMessage` on the queue's ARN), and their refusals as each service words them.
 */

export interface KmsKeys {
  /** The key ARN for a KeyId as a request may give it (ARN, key id, alias name or alias ARN); undefined: unknown. */
  arnOf(keyId: string): string | undefined;
}

export function kmsRules(keys: KmsKeys): ServiceRules {
  return {
    signingName: 'kms',
    callsOf(request: InboundRequest): Call[] {
      const operation = operationOf(request, 'TrentService');
      const body = jsonBody(request);
      const action = `kms:${operation}`;
      if (typeof body.KeyId !== 'string') return [{ action, resource: '*' }];
      // An unknown key is the stand-in's to refuse (NotFoundException), as KMS does before IAM can say anything.
      const resource = keys.arnOf(body.KeyId) ?? body.KeyId;
      const context: Record<string, string> = {};
      if (typeof body.SigningAlgorithm === 'string') context['kms:SigningAlgorithm'] = body.SigningAlgorithm;
      if (typeof body.MessageType === 'string') context['kms:MessageType'] = body.MessageType;
      return [{ action, resource, context }];
    },
    refusal: jsonRefusal('application/x-amz-json-1.1', plainRefusalTypes('ValidationException')),
  };
}

export interface NamedResources {
  /** The ARN of a resource a request names (a secret by ARN or name, a queue by URL); undefined: unknown. */
  arnOf(id: string): string | undefined;
}

export function secretsManagerRules(secrets: NamedResources): ServiceRules {
  return {
    signingName: 'secretsmanager',
    callsOf(request) {
      const operation = operationOf(request, 'secretsmanager');
      const body = jsonBody(request);
      const action = `secretsmanager:${operation}`;
      if (typeof body.SecretId !== 'string') return [{ action, resource: '*' }];
      return [{ action, resource: secrets.arnOf(body.SecretId) ?? body.SecretId, context: { 'secretsmanager:SecretId': body.SecretId } }];
    },
    refusal: jsonRefusal('application/x-amz-json-1.1', plainRefusalTypes('InvalidRequestException'), { messageKey: 'Message' }),
  };
}

export function sqsRules(queues: NamedResources): ServiceRules {
  return {
    signingName: 'sqs',
    callsOf(request) {
      const operation = operationOf(request, 'AmazonSQS');
      const body = jsonBody(request);
      const action = `sqs:${operation}`;
      if (operation === 'GetQueueUrl') {
        if (typeof body.QueueName !== 'string') throw new MalformedRequest('The request must contain the parameter QueueName.');
        return [{ action, resource: queues.arnOf(body.QueueName) ?? '*' }];
      }
      if (typeof body.QueueUrl !== 'string') return [{ action, resource: '*' }];
      return [{ action, resource: queues.arnOf(body.QueueUrl) ?? body.QueueUrl }];
    },
    refusal: jsonRefusal('application/x-amz-json-1.0', coralRefusalTypes('com.amazonaws.sqs#InvalidParameterValue'), {
      queryErrors: { AccessDenied: 'AccessDenied', InvalidSignature: 'SignatureDoesNotMatch', UnrecognizedClient: 'InvalidClientTokenId' },
    }),
  };
}
