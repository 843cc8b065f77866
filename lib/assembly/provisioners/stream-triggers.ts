import { resourcesOfType } from '../cloud-assembly';
import { StreamEventSourceMapping } from '../lambda/event-sources';
import type { Provisioner } from './provisioner';

/**
 * AWS::Lambda::EventSourceMapping on a DynamoDB stream of the template: the stream's records
 * delivered to the function as Lambda delivers them (../lambda/event-sources.ts), the stream read
 * as the function's role, a batch that keeps failing described to the mapping's OnFailure queue.
 */
export const streamTriggers: Provisioner = {
  types: ['AWS::Lambda::EventSourceMapping'],
  async provision({ template, resolver, services, functions, notEmulated, background, closers, log }) {
    for (const [id, resource] of resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const fn = functions.find(String(props.FunctionName));
      const table = [...services.dynamodb.streamed.values()].find((t) => t.streamArn === props.EventSourceArn);
      if (!fn || !table || props.Enabled === false) {
        notEmulated.push({ type: 'AWS::Lambda::EventSourceMapping', logicalId: id, reason: table ? 'disabled, or its function does not run here' : `its source ${props.EventSourceArn}: only the template's DynamoDB streams are emulated` });
        continue;
      }
      const { credentials } = fn;
      const destination = props.DestinationConfig?.OnFailure?.Destination as string | undefined;
      const destinationQueue = services.sqs.queues.find((q) => q.arn === destination);
      const mapping = new StreamEventSourceMapping(
        {
          logicalId: id,
          streamArn: table.streamArn,
          batchSize: Number(props.BatchSize ?? 100),
          windowMs: Number(props.MaximumBatchingWindowInSeconds ?? 0) * 1000,
          filters: ((props.FilterCriteria?.Filters ?? []) as Array<{ Pattern: string }>).map((f) => f.Pattern),
          bisect: props.BisectBatchOnFunctionError === true,
          maxRetries: props.MaximumRetryAttempts === undefined || Number(props.MaximumRetryAttempts) < 0 ? 10_000 : Number(props.MaximumRetryAttempts),
          maxRecordAgeSeconds: props.MaximumRecordAgeInSeconds === undefined ? undefined : Number(props.MaximumRecordAgeInSeconds),
          mayReadStream: () => services.iam.evaluator.decide(credentials.caller, { action: 'dynamodb:GetRecords', resource: table.streamArn }),
          onFailure: destinationQueue
            ? (description) => services.callAsRole(credentials, 'sqs', 'AmazonSQS.SendMessage', { QueueUrl: destinationQueue.url, MessageBody: JSON.stringify(description) })
            : undefined,
        },
        fn.host,
        (line) => log(`Lambda  ${line}`),
      );
      services.dynamodb.streams.subscribe(table.streamArn, (records) => mapping.push(records));
      background.push(mapping);
      closers.add(() => mapping.stop());
    }
  },
};
