import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { withoutSdkLogLines } from '../aws/sdk-log-lines';
import { partWriters, type PartWriters } from './parts';

/**
 * Events a part takes at most, and what makes a batch worth cutting: a part writer plans about
 * this many in a few tenths of a second of its own CPU (docs/capacity.md#one-log-many-writers); a
 * batch is cut into as many parts as it fills at least halfway (parts.ts partsForEvents), so a batch
 * of less than a full part stays in the sequencer, where it needs no invocation.
 */
export const EVENTS_PER_PART = 500;

export class PartWriterError extends Error {
  override name = 'PartWriterError';
}

/**
 * The part writers as a Lambda function (functions/handlers/sequence-part.ts) the sequencer invokes
 * synchronously, once to plan a part and once to write it: the invocation is the request, the
 * function's answer the result (JSON both ways, bytes as base64: parts.ts invocationToJson, answerToJson). A function error fails
 * the batch (before its head is published: nothing written; after: the journal holds the part).
 */
export function lambdaParts(functionName: string, options: { maxParts: number; eventsPerPart?: number; client?: LambdaClient }): PartWriters {
  const { maxParts, eventsPerPart = EVENTS_PER_PART } = options;
  const client = options.client ?? defaultClient(maxParts);
  return partWriters({ eventsPerPart, maxParts }, async (invocation) => {
    const out = await client.send(new InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(JSON.stringify(invocation), 'utf8') }));
    const text = Buffer.from(out.Payload ?? new Uint8Array()).toString('utf8');
    if (out.FunctionError) throw new PartWriterError(`the part writer ${functionName} failed (${out.FunctionError}): ${text.slice(0, 500)}`);
    return JSON.parse(text);
  });
}

/** A client for the ambient region and credentials (endpoints from the SDK's settings: AWS_ENDPOINT_URL_LAMBDA outside AWS), one socket a part. */
function defaultClient(maxParts: number): LambdaClient {
  // Two attempts: a throttled or dropped invocation is sent again (a part's plan only reads, its write is idempotent).
  return withoutSdkLogLines(new LambdaClient({ maxAttempts: 2, requestHandler: { httpAgent: { maxSockets: maxParts }, httpsAgent: { maxSockets: maxParts } } }));
}
