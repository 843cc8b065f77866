import { createHash, randomUUID } from 'node:crypto';
import { AwsServiceError, startAwsJsonService } from './aws-json-service';

/**
 * A stand-in for Amazon SQS holding the queues it is given, speaking SQS's JSON protocol
 * (`X-Amz-Target: AmazonSQS.*`, `application/x-amz-json-1.0`). It keeps what a dead-letter queue
 * needs: SendMessage, ReceiveMessage (a received message is hidden for its visibility timeout),
 * DeleteMessage, GetQueueUrl and GetQueueAttributes (the approximate counts).
 */
export interface QueuedMessage {
  messageId: string;
  body: string;
  attributes: Record<string, { DataType: string; StringValue?: string }>;
  sentAt: number;
}

export interface SqsStandIn {
  endpoint: string;
  /** The URL of queue NAME in ACCOUNT (the queue's Ref in CloudFormation). */
  urlOf(account: string, name: string): string;
  create(account: string, name: string): void;
  /** Every message a queue holds (visible or not), oldest first. */
  messages(url: string): QueuedMessage[];
  close(): Promise<void>;
}

interface Queue {
  url: string;
  messages: Array<QueuedMessage & { invisibleUntil: number; receipt: string | null }>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export async function startSqsStandIn(): Promise<SqsStandIn> {
  const queues = new Map<string, Queue>();
  let endpoint = '';
  const find = (url: unknown): Queue => {
    const queue = typeof url === 'string' ? queues.get(url) : undefined;
    if (!queue) throw new AwsServiceError('com.amazonaws.sqs#QueueDoesNotExist', 'The specified queue does not exist.', 400, 'AWS.SimpleQueueService.NonExistentQueue');
    return queue;
  };
  const service = await startAwsJsonService({
    targetPrefix: 'AmazonSQS',
    contentType: 'application/x-amz-json-1.0',
    handlers: {
      SendMessage: (body) => {
        const queue = find(body.QueueUrl);
        if (typeof body.MessageBody !== 'string' || body.MessageBody.length === 0) {
          throw new AwsServiceError('com.amazonaws.sqs#InvalidParameterValue', 'The request must contain the parameter MessageBody.', 400, 'InvalidParameterValue');
        }
        const message = { messageId: randomUUID(), body: body.MessageBody, attributes: body.MessageAttributes ?? {}, sentAt: Date.now(), invisibleUntil: 0, receipt: null };
        queue.messages.push(message);
        return { MessageId: message.messageId, MD5OfMessageBody: md5(message.body) };
      },
      ReceiveMessage: (body) => {
        const queue = find(body.QueueUrl);
        const now = Date.now();
        const visibleFor = Number(body.VisibilityTimeout ?? 30) * 1000;
        const taken = queue.messages.filter((m) => m.invisibleUntil <= now).slice(0, Number(body.MaxNumberOfMessages ?? 1));
        for (const m of taken) {
          m.invisibleUntil = now + visibleFor;
          m.receipt = randomUUID();
        }
        return { Messages: taken.map((m) => ({ MessageId: m.messageId, ReceiptHandle: m.receipt, MD5OfBody: md5(m.body), Body: m.body, MessageAttributes: m.attributes })) };
      },
      DeleteMessage: (body) => {
        const queue = find(body.QueueUrl);
        const index = queue.messages.findIndex((m) => m.receipt !== null && m.receipt === body.ReceiptHandle);
        if (index < 0) throw new AwsServiceError('com.amazonaws.sqs#ReceiptHandleIsInvalid', 'The input receipt handle is invalid.', 400, 'ReceiptHandleIsInvalid');
        queue.messages.splice(index, 1);
        return {};
      },
      GetQueueUrl: (body) => {
        const queue = [...queues.values()].find((q) => q.url.endsWith(`/${body.QueueName}`));
        if (!queue) find(undefined);
        return { QueueUrl: queue!.url };
      },
      GetQueueAttributes: (body) => {
        const queue = find(body.QueueUrl);
        const now = Date.now();
        const visible = queue.messages.filter((m) => m.invisibleUntil <= now).length;
        return { Attributes: { ApproximateNumberOfMessages: String(visible), ApproximateNumberOfMessagesNotVisible: String(queue.messages.length - visible) } };
      },
    },
  });
  endpoint = service.endpoint;
  const urlOf = (account: string, name: string) => `${endpoint}/${account}/${name}`;
  return {
    endpoint,
    urlOf,
    create(account, name) {
      const url = urlOf(account, name);
      if (!queues.has(url)) queues.set(url, { url, messages: [] });
    },
    messages: (url) => (queues.get(url)?.messages ?? []).map(({ messageId, body, attributes, sentAt }) => ({ messageId, body, attributes, sentAt })),
    close: () => service.close(),
  };
}
