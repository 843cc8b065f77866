import { policyModel } from '../iam/policy-model';
import type { Provisioner } from './provisioner';

/**
 * The template's roles and every policy that grants or limits access (identity policies, bucket,
 * queue, secret and function policies; a key's policy is read from the key), given to the IAM
 * evaluator behind every local endpoint. What cannot be resolved is printed, and grants nothing.
 */
export const iamPolicies: Provisioner = {
  types: [
    'AWS::IAM::Role',
    'AWS::IAM::Policy',
    'AWS::IAM::ManagedPolicy',
    'AWS::S3::BucketPolicy',
    'AWS::SecretsManager::ResourcePolicy',
    'AWS::SQS::QueuePolicy',
    'AWS::Lambda::Permission',
  ],
  async provision({ template, resolver, services, log }) {
    const { evaluator } = services.iam;
    evaluator.replaceModel(policyModel(template, resolver));
    for (const problem of evaluator.policies.problems) log(`IAM  could not read a policy: ${problem}`);
  },
};
