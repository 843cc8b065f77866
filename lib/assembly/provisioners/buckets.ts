import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { resourcesOfType } from '../cloud-assembly';
import type { Provisioner } from './provisioner';

/** AWS::S3::Bucket: each bucket created, empty, in the local S3 (its policy is the IAM provisioner's). */
export const buckets: Provisioner = {
  types: ['AWS::S3::Bucket'],
  async provision({ template, resolver, services }) {
    for (const [id] of resourcesOfType(template, 'AWS::S3::Bucket')) {
      await services.s3.admin.send(new CreateBucketCommand({ Bucket: String(resolver.ref(id)) }));
    }
  },
};
