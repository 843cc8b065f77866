import { resourcesOfType } from '../cloud-assembly';
import type { Provisioner } from './provisioner';

/** AWS::SQS::Queue: each queue created in the SQS stand-in (its URL is its Ref; its policy is the IAM provisioner's). */
export const queues: Provisioner = {
  types: ['AWS::SQS::Queue'],
  async provision({ template, resolver, services, account }) {
    for (const [id] of resourcesOfType(template, 'AWS::SQS::Queue')) {
      const name = resolver.getAtt(id, 'QueueName');
      services.sqs.standIn.create(account.account, name);
      services.sqs.queues.push({ logicalId: id, url: String(resolver.ref(id)), name, arn: resolver.getAtt(id, 'Arn') });
    }
  },
};
