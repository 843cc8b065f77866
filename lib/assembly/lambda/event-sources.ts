import { randomUUID } from 'node:crypto';
import type { StreamRecord } from '../dynamodb-streams';
import { compileFilterCriteria } from '../filter-pattern';
import type { Decision } from '../iam/evaluator';
import type { FunctionHost, InvocationOutcome } from './function-host';

/**
 * What invokes a function besides API Gateway, as the template wires it:
 *  - a DynamoDB stream event source mapping (AWS::Lambda::EventSourceMapping): records that pass
 *    its FilterCriteria, in order, in batches of up to BatchSize gathered for at most
 *    MaximumBatchingWindowInSeconds; a failed batch is split in two when BisectBatchOnFunctionError
 *    says so (a split does not use up a retry), retried MaximumRetryAttempts times, and then
 *    described to its OnFailure destination and skipped; the stream is read with the function's
 *    role, so a role that may not read it stops delivery until it may;
 *  - asynchronous invocations (a schedule rule's target): queued, retried per the function's
 *    EventInvokeConfig, and sent to its dead-letter queue when they still fail.
 */

export interface StreamMappingConfig {
  logicalId: string;
  streamArn: string;
  batchSize: number;
  windowMs: number;
  filters: string[];
  bisect: boolean;
  maxRetries: number;
  maxRecordAgeSeconds?: number;
  /** Lambda reads the stream as the function's execution role. */
  mayReadStream: () => Promise<Decision>;
  /** Sends the description of a batch that kept failing to the mapping's OnFailure destination. */
  onFailure?: (description: Record<string, unknown>) => Promise<void>;
}

const RETRY_BASE_MS = 250;
const RETRY_MAX_MS = 4_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class StreamEventSourceMapping {
  private readonly queue: StreamRecord[] = [];
  private firstQueuedAt = 0;
  private pumping: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private stopped = false;
  private refusedReading = false;
  /** The filter criteria, parsed once. */
  private readonly passes: (record: StreamRecord) => boolean;
  /** Batches the mapping gave up on (sent to the OnFailure destination). */
  failedBatches = 0;

  constructor(
    readonly config: StreamMappingConfig,
    private readonly fn: FunctionHost,
    private readonly log: (line: string) => void,
  ) {
    this.passes = compileFilterCriteria(config.filters);
  }

  /** New stream records: those passing the filter criteria join the queue; the rest are dropped, as Lambda drops them. */
  push(records: StreamRecord[]): void {
    const passing = records.filter(this.passes);
    if (passing.length === 0 || this.stopped) return;
    if (this.queue.length === 0) this.firstQueuedAt = performance.now();
    this.queue.push(...passing);
    this.wake?.();
    this.pumping ??= this.pump().finally(() => (this.pumping = null));
  }

  /** Nothing queued and no batch in flight. */
  get idle(): boolean {
    return this.queue.length === 0 && this.pumping === null;
  }

  private async pump(): Promise<void> {
    while (!this.stopped && this.queue.length > 0) {
      const waited = performance.now() - this.firstQueuedAt;
      if (this.queue.length < this.config.batchSize && waited < this.config.windowMs) {
        await Promise.race([sleep(this.config.windowMs - waited), new Promise<void>((resolve) => (this.wake = resolve))]);
        this.wake = null;
        continue;
      }
      const permission = await this.config.mayReadStream();
      if (!permission.allowed) {
        if (!this.refusedReading) this.log(`event source mapping ${this.config.logicalId}: PROBLEM: the function's role may not read the stream (${permission.message}); records wait`);
        this.refusedReading = true;
        await sleep(1_000);
        continue;
      }
      this.refusedReading = false;
      const batch = this.queue.splice(0, this.config.batchSize);
      this.firstQueuedAt = performance.now();
      const maxAge = this.config.maxRecordAgeSeconds;
      const fresh = maxAge === undefined || maxAge < 0 ? batch : batch.filter((r) => Date.now() / 1000 - r.dynamodb.ApproximateCreationDateTime <= maxAge);
      if (fresh.length > 0) await this.deliver(fresh, this.config.maxRetries);
    }
  }

  private async deliver(batch: StreamRecord[], retriesLeft: number, attempt = 0): Promise<void> {
    const outcome: InvocationOutcome = await this.fn.invokeWhenFree({ Records: batch });
    if (outcome.ok) return;
    if (this.config.bisect && batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await this.deliver(batch.slice(0, half), retriesLeft);
      await this.deliver(batch.slice(half), retriesLeft);
      return;
    }
    if (retriesLeft > 0 && !this.stopped) {
      await sleep(Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** attempt));
      await this.deliver(batch, retriesLeft - 1, attempt + 1);
      return;
    }
    this.failedBatches++;
    const description = {
      requestContext: { requestId: outcome.requestId, functionArn: this.fn.definition.arn, condition: 'RetryAttemptsExhausted', approximateInvokeCount: attempt + 1 },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId: 'shardId-00000001',
        startSequenceNumber: batch[0].dynamodb.SequenceNumber,
        endSequenceNumber: batch[batch.length - 1].dynamodb.SequenceNumber,
        approximateArrivalOfFirstRecord: new Date(batch[0].dynamodb.ApproximateCreationDateTime * 1000).toISOString(),
        approximateArrivalOfLastRecord: new Date(batch[batch.length - 1].dynamodb.ApproximateCreationDateTime * 1000).toISOString(),
        batchSize: batch.length,
        streamArn: this.config.streamArn,
      },
    };
    this.log(`event source mapping ${this.config.logicalId}: batch of ${batch.length} failed after ${attempt + 1} attempts (${outcome.errorType}: ${outcome.errorMessage}); skipped`);
    await this.config.onFailure?.(description).catch((error: Error) => this.log(`event source mapping ${this.config.logicalId}: its OnFailure destination refused the batch's description: ${error.message}`));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.pumping;
  }
}

export interface AsyncInvokeConfig {
  maxRetries: number;
  maxEventAgeSeconds: number;
  /** The function's dead-letter queue (DeadLetterConfig) or OnFailure destination: gets the event that kept failing. */
  onFailure?: (event: unknown, outcome: Extract<InvocationOutcome, { ok: false }>) => Promise<void>;
}

/** Lambda's asynchronous invocation: queued, run when an environment is free, retried, then dead-lettered. */
export class AsyncInvoker {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly fn: FunctionHost,
    private readonly config: AsyncInvokeConfig,
    private readonly log: (line: string) => void,
  ) {}

  invoke(event: unknown): void {
    const queuedAt = Date.now();
    const run = (async () => {
      for (let attempt = 0; ; attempt++) {
        if (Date.now() - queuedAt > this.config.maxEventAgeSeconds * 1000) {
          this.log(`asynchronous event dropped: older than ${this.config.maxEventAgeSeconds} s`);
          return;
        }
        const outcome = await this.fn.invokeWhenFree(event);
        if (outcome.ok) return;
        if (attempt >= this.config.maxRetries) {
          await this.config.onFailure?.(event, outcome).catch((error: Error) => this.log(`dead-letter queue refused the event: ${error.message}`));
          return;
        }
        // Lambda waits a minute, then two, between retries of an asynchronous event; locally a second, then two.
        await sleep(1000 * 2 ** attempt);
      }
    })();
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  get idle(): boolean {
    return this.inFlight.size === 0;
  }

  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

/** An EventBridge schedule rule's `rate(N minute|minutes|hour|hours|day|days)` in milliseconds; null for cron() (not emulated). */
export function rateMs(expression: string): number | null {
  const match = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!match) return null;
  const unit = match[2].startsWith('minute') ? 60_000 : match[2].startsWith('hour') ? 3_600_000 : 86_400_000;
  return Number(match[1]) * unit;
}

/** The event a schedule rule sends its targets. */
export function scheduledEvent(ruleArn: string, account: string, region: string): Record<string, unknown> {
  return { version: '0', id: randomUUID(), 'detail-type': 'Scheduled Event', source: 'aws.events', account, time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), region, resources: [ruleArn], detail: {} };
}
